#!/usr/bin/env bash
# Runs a command on this machine as if Redis, LibreOffice, Chromium, Python, the PDF tools,
# PostgreSQL and the network were not there: the proof that the unit tier needs none of them
# (docs/testing.md).
#
#   bash scripts/without-services.sh npm run test:unit
#
# - PATH: a temporary directory of links to every program on PATH except the services' (and no
#   pyenv directory at all);
# - as root, where unshare(1) works: also a private mount namespace in which the services'
#   absolute paths (/usr/bin/python3, LibreOffice's soffice.bin, which the code calls by path)
#   are covered by a stub that fails, and a private network namespace with only loopback.
# Elsewhere only PATH is cleared, and the script says so.
set -euo pipefail
cd "$(dirname "$0")/.."

HIDDEN_NAMES='^(redis-.*|soffice|libreoffice|lowriter|localc|loimpress|lodraw|lomath|lobase|loffice|unoconv|chromium.*|google-chrome.*|python.*|pip.*|pydoc.*|pyenv.*|qpdf|pdf[a-z]+|zbarimg|ZXingReader|xmllint|faketime|psql|postgres|pg_.*|initdb|gotenberg)$'
HIDDEN_PATHS=(
  /usr/bin/python3 /usr/bin/python3.* /usr/bin/redis-server /usr/bin/redis-cli /usr/bin/chromium
  /usr/bin/qpdf /usr/bin/pdftoppm /usr/bin/pdftotext /usr/bin/pdfinfo /usr/bin/soffice
  /usr/lib/libreoffice/program/soffice /usr/lib/libreoffice/program/soffice.bin
  /usr/lib/chromium/chromium
)

# npm packages first, while there is a network: `npm ci` inside would empty node_modules and fail.
bash scripts/ensure-deps.sh --npm-only

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
IFS=: read -ra dirs <<<"$PATH"
for dir in "${dirs[@]}"; do
  case "$dir" in *pyenv*) continue ;; esac
  for file in "$dir"/*; do
    name=${file##*/}
    [ -f "$file" ] && [ -x "$file" ] || continue
    [[ $name =~ $HIDDEN_NAMES ]] && continue
    [ -e "$bin/$name" ] || ln -s "$file" "$bin/$name"
  done
done
stub="$bin/.hidden-service"
printf '#!/bin/sh\necho "$0: hidden by scripts/without-services.sh" >&2\nexit 127\n' >"$stub"
chmod +x "$stub"

if [ "$(id -u)" = 0 ] && unshare --mount --net true 2>/dev/null; then
  echo "without-services: PATH without the services, their absolute paths covered, no network" >&2
  # The inner shell sees the outer variables through the environment.
  export WS_BIN="$bin" WS_STUB="$stub" WS_PATHS="${HIDDEN_PATHS[*]}" npm_config_update_notifier=false
  unshare --mount --propagation private --net bash -c '
    set -euo pipefail
    ip link set lo up
    for path in $WS_PATHS; do
      [ -e "$path" ] && mount --bind "$WS_STUB" "$path"
    done
    PATH="$WS_BIN" exec "$@"' without-services "$@"
  exit
fi
echo "without-services: PATH only (not root, or unshare is not allowed): absolute paths still reachable" >&2
PATH="$bin" npm_config_update_notifier=false "$@"
