#!/usr/bin/env bash
# Installs the Debian packages the service and its tests need, only when one is missing.
# Runs as root through apt-get; otherwise names what is missing and stops, so a developer
# is never left with a half-working set-up and a confusing failure later.
set -euo pipefail

# package -> a file it provides (cheap presence check without dpkg-query per package)
declare -A WANT=(
  [redis-server]=/usr/bin/redis-server
  [libreoffice-writer-nogui]=/usr/lib/libreoffice/program/soffice.bin
  [python3-uno]=/usr/lib/python3/dist-packages/uno.py
  # Calc: spreadsheet templates (.xlsx) to PDF and ODS (docs/spreadsheets-and-slides.md).
  [libreoffice-calc-nogui]=/usr/lib/libreoffice/program/libsclo.so
  # Impress: slide-deck templates (.pptx) to PDF and ODP (docs/spreadsheets-and-slides.md).
  [libreoffice-impress-nogui]=/usr/lib/libreoffice/program/libsdlo.so
  # Spreadsheet outputs read back in the tests (a third-party reader and writer of .xlsx).
  [python3-openpyxl]=/usr/lib/python3/dist-packages/openpyxl/__init__.py
  # LibreOffice's allocator (libs/converters/src/allocator.ts): faster, and no slower with age.
  [libjemalloc2]=/usr/lib/$(uname -m)-linux-gnu/libjemalloc.so.2
  # pdftoppm and pdfinfo: page images (options.output png/jpeg, docs/outputs.md); pdftotext in tests.
  [poppler-utils]=/usr/bin/pdftoppm
  [python3-docxtpl]=/usr/lib/python3/dist-packages/docxtpl/__init__.py
  [fonts-crosextra-carlito]=/usr/share/fonts/truetype/crosextra/Carlito-Regular.ttf
  [fonts-crosextra-caladea]=/usr/share/fonts/truetype/crosextra/Caladea-Regular.ttf
  [fonts-liberation2]=/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf
  [fonts-dejavu-core]=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
  # Scripts the fonts above lack, chosen by measurement (docs/fonts.md): CJK, Thai, Devanagari, emoji.
  [fonts-wqy-zenhei]=/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc
  [fonts-tlwg-garuda-ttf]=/usr/share/fonts/truetype/tlwg/Garuda.ttf
  [fonts-lohit-deva]=/usr/share/fonts/truetype/lohit-devanagari/Lohit-Devanagari.ttf
  [fonts-symbola]=/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf
  # PDF structure check in the fidelity tests (qpdf --check); the worker merges batches with it.
  [qpdf]=/usr/bin/qpdf
  # The PDF finishing step (libs/converters/src/pdf_finish.py, docs/pdf.md): pikepdf is qpdf's
  # Python binding, reportlab draws the watermark's text; prlimit (util-linux) bounds the process.
  [python3-pikepdf]=/usr/lib/python3/dist-packages/pikepdf/__init__.py
  [python3-reportlab]=/usr/lib/python3/dist-packages/reportlab/__init__.py
  [util-linux]=/usr/bin/prlimit
  # The Factur-X tests check the embedded invoice XML with xmllint.
  [libxml2-utils]=/usr/bin/xmllint
  # Barcodes decoded back from the PDF in the tests (zbarimg).
  [zbar-tools]=/usr/bin/zbarimg
  # DataMatrix and PDF417, which zbar 0.23 does not decode (ZXingReader, test/barcodes.e2e-spec.ts).
  [zxing-cpp-tools]=/usr/bin/ZXingReader
  # Babel, for the formatting filters' differential test (comes with python3-docxtpl; named here too).
  # certutil: the signing tests' NSS database that trusts the test root for pdfsig (docs/signing.md).
  [libnss3-tools]=/usr/bin/certutil
  [python3-babel]=/usr/lib/python3/dist-packages/babel/__init__.py
  # Python's num2words, the num2words filter's reference table (test/num2words-table.e2e-spec.ts).
  [python3-num2words]=/usr/lib/python3/dist-packages/num2words/__init__.py
  # A worker with a skewed clock in the fault tests (libfaketime).
  [faketime]=/usr/bin/faketime
  # The playground's browser test (playwright-core drives Debian's chromium).
  [chromium]=/usr/bin/chromium
  # Stored templates, versions and API keys (libs/store, docs/templates.md): npm start's local
  # PostgreSQL and the tests' (test/support/postgres.ts).
  [postgresql]=/usr/lib/postgresql/15/bin/postgres
)

missing=()
for pkg in "${!WANT[@]}"; do
  [ -e "${WANT[$pkg]}" ] || missing+=("$pkg")
done

# LibreOffice 25.2 or newer, chosen by measurement (docs/conversion.md#which-libreoffice): Debian 13's
# own, or bookworm-backports' on Debian 12, whose own 7.4 lays out some pages differently from Word
# and uses up to 1.6x the CPU. Gotenberg 8's images ship 25.x too.
LO_PACKAGES=(libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui python3-uno)
lo_major() {
  local v
  v=$(dpkg-query -W -f='${Version}' libreoffice-core-nogui 2>/dev/null ||
    dpkg-query -W -f='${Version}' libreoffice-core 2>/dev/null) || return 0
  v=${v#*:}
  echo "${v%%.*}"
}
codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
installed_lo=$(lo_major)
lo_backports=""
if [ "$codename" = bookworm ]; then
  if [ -n "$installed_lo" ] && [ "$installed_lo" -lt 25 ]; then
    lo_backports=bookworm-backports # 7.4 installed: upgrade it
  elif printf '%s\n' "${missing[@]}" | grep -qxE 'libreoffice-writer-nogui|libreoffice-calc-nogui|libreoffice-impress-nogui|python3-uno'; then
    lo_backports=bookworm-backports
  fi
fi
if [ -n "$lo_backports" ]; then
  # Installed from backports below, not with the rest.
  rest=()
  for pkg in "${missing[@]}"; do
    [[ " ${LO_PACKAGES[*]} " == *" $pkg "* ]] || rest+=("$pkg")
  done
  missing=("${rest[@]}")
fi
[ ${#missing[@]} -eq 0 ] && [ -z "$lo_backports" ] && exit 0

BACKPORTS=/etc/apt/sources.list.d/bookworm-backports.sources
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  if [ ${#missing[@]} -gt 0 ]; then
    echo "Missing system packages: ${missing[*]}" >&2
    echo "Install them with: sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  fi
  if [ -n "$lo_backports" ]; then
    echo "LibreOffice 25.2 or newer is needed (Debian 12 has 7.4). Enable bookworm-backports and run:" >&2
    echo "  sudo apt-get install -y --no-install-recommends -t bookworm-backports ${LO_PACKAGES[*]}" >&2
  fi
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
if [ -n "$lo_backports" ] && ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo "Enabling Debian's bookworm-backports for LibreOffice 25.2 ($BACKPORTS)" >&2
  printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian' 'Suites: bookworm-backports' \
    'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' >"$BACKPORTS"
fi
apt-get update -qq >&2
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing system packages: ${missing[*]}" >&2
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
if [ -n "$lo_backports" ]; then
  echo "Installing LibreOffice from $lo_backports: ${LO_PACKAGES[*]}" >&2
  # -t in an install of its own: it would take any other package from backports too.
  apt-get install -y -qq --no-install-recommends -t "$lo_backports" "${LO_PACKAGES[@]}" >&2
fi
