#!/usr/bin/env bash
# LibreOffice 25.2 (Debian bookworm-backports) in a private prefix, beside the system's 7.4, for
# bench/lo-versions.bench.ts. Nothing is installed: a separate apt configuration (its own sources
# list, package lists and cache under $LO25) downloads the .debs, `dpkg-deb -x` unpacks them into
# $LO25/root, and the few absolute paths Debian's build carries (/usr/lib/libreoffice,
# /etc/libreoffice, /var/lib/libreoffice) are pointed into the prefix so 25.2 never reads 7.4's
# registry or pyuno. Writes $LO25/python3, a wrapper that runs /usr/bin/python3 with 25.2's pyuno
# (uno_bridge.py's --soffice is then $LO25/root/usr/lib/libreoffice/program/soffice.bin).
#
#   bash bench/lo25-prefix.sh            # LO25=/tmp/lo25 by default; needs network, not root
#   LO25_VERSION=4:25.2.3-2+deb13u5~bpo12+1 bash bench/lo25-prefix.sh   # pin a version
#
# Redo from scratch: rm -rf /tmp/lo25 first. The system's 7.4 is never touched.
set -euo pipefail

LO25=${LO25:-/tmp/lo25}
ROOT=$LO25/root
PROG=$ROOT/usr/lib/libreoffice/program
mkdir -p "$LO25/lists/partial" "$LO25/cache/archives/partial" "$LO25/debs" "$ROOT"

cat >"$LO25/sources.list" <<'EOF'
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm-backports main
EOF
APT=(-o "Dir::Etc::SourceList=$LO25/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$LO25/lists" -o "Dir::Cache=$LO25/cache")
apt-get "${APT[@]}" update -q

# What libreoffice-writer-nogui and python3-uno need from backports' libreoffice source (the rest
# of their dependencies are bookworm's own and installed already with the system's 7.4).
PKGS=(libreoffice-core-nogui libreoffice-writer-nogui libreoffice-common libreoffice-base-core
  libreoffice-style-colibre libreoffice-uiconfig-common python3-uno ure uno-libs-private
  libuno-cppu3 libuno-cppuhelpergcc3-3 libuno-purpenvhelpergcc3-3 libuno-sal3 libuno-salhelpergcc3-3)
if [[ -n ${LO25_VERSION:-} ]]; then PKGS=("${PKGS[@]/%/=$LO25_VERSION}"); fi
(cd "$LO25/debs" && apt-get "${APT[@]}" download "${PKGS[@]}")
# 25.2 links libzxcvbn (password strength), which 7.4 did not: bookworm's own, from the system's
# apt lists, downloaded only.
(cd "$LO25/debs" && apt-get download libzxcvbn0)
for deb in "$LO25"/debs/*.deb; do dpkg-deb -x "$deb" "$ROOT"; done

# Absolute paths in Debian's build, pointed into the prefix.
sed -i "s|file:///usr/lib/libreoffice|file://$ROOT/usr/lib/libreoffice|" "$PROG/fundamentalrc"
sed -i "s|file:///etc/libreoffice/sofficerc|file://$ROOT/etc/libreoffice/sofficerc|" "$PROG/sofficerc"
sed -i -e "s|'/usr/lib/libreoffice/program'|'$PROG'|" \
  -e "s|vnd.sun.star.pathname:/usr/lib/libreoffice/program/fundamentalrc|vnd.sun.star.pathname:$PROG/fundamentalrc|" \
  "$ROOT/usr/lib/python3/dist-packages/uno.py"
SHARE=$ROOT/usr/lib/libreoffice/share
mkdir -p "$ROOT/var/lib/libreoffice/share/prereg/bundled" "$ROOT/var/spool/libreoffice/uno_packages/cache"
# libreoffice-common's postinst copies main.xcd into /etc with ucf; here into the prefix's etc.
mkdir -p "$ROOT/etc/libreoffice/registry"
cp "$SHARE/.registry/main.xcd" "$ROOT/etc/libreoffice/registry/main.xcd"
ln -sfn "$ROOT/etc/libreoffice/registry/main.xcd" "$SHARE/registry/main.xcd"
ln -sfn "$ROOT/etc/libreoffice/psprint.conf" "$SHARE/psprint/psprint.conf"
ln -sfn "$ROOT/var/lib/libreoffice/share/prereg/bundled" "$SHARE/prereg/bundled"
ln -sfn "$ROOT/var/spool/libreoffice/uno_packages/cache" "$SHARE/uno_packages/cache"

# Every library soffice.bin and pyuno load must resolve inside the prefix or from bookworm.
missing=$(for f in "$PROG"/*.so "$PROG"/*.so.* "$PROG/soffice.bin"; do
  LD_LIBRARY_PATH=$PROG:$ROOT/usr/lib/x86_64-linux-gnu ldd "$f" 2>/dev/null | grep 'not found' || true
done | sort -u)
if [[ -n $missing ]]; then
  echo "lo25-prefix: libraries not found:" >&2
  echo "$missing" >&2
  exit 1
fi

cat >"$LO25/python3" <<EOF
#!/bin/sh
# /usr/bin/python3 with LibreOffice 25.2's pyuno from $ROOT (made by bench/lo25-prefix.sh)
export PYTHONPATH=$ROOT/usr/lib/python3/dist-packages:$PROG\${PYTHONPATH:+:\$PYTHONPATH}
export URE_BOOTSTRAP=vnd.sun.star.pathname:$PROG/fundamentalrc
export LD_LIBRARY_PATH=$PROG:$ROOT/usr/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
exec /usr/bin/python3 "\$@"
EOF
chmod +x "$LO25/python3"

"$LO25/python3" -c 'import uno, pyuno; print("pyuno from", pyuno.__file__)'
echo "soffice: $PROG/soffice.bin"
echo "python:  $LO25/python3"
