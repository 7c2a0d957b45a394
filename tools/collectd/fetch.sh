#!/usr/bin/env bash
# Owns the collectd the sender tests run: Debian's collectd-core and the one library its write_http plugin needs that a
# Debian machine with git lacks (libyajl2), downloaded with apt-get and unpacked (no install, no root) into
# .collectd/<version>/ once. Later calls return at once, so the test setup calls it unconditionally.
#   tools/collectd/fetch.sh               fetch if missing
#   tools/collectd/fetch.sh --print-path  fetch if missing, then print the unpacked root on stdout: collectd is
#                                         <root>/usr/sbin/collectd, run with LD_LIBRARY_PATH=<root>/deps
set -euo pipefail

PACKAGES=(collectd-core libyajl2)
# The plugins the tests and docs use: each must load with what the machine and the folder hold.
PLUGINS=(logfile exec load write_tsdb write_graphite write_http)

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CACHE=${KAIROGRAPH_COLLECTD_HOME:-$ROOT/.collectd}

PRINT=0
case ${1:-} in
  --print-path) PRINT=1 ;;
  '') ;;
  *) echo "usage: tools/collectd/fetch.sh [--print-path]" >&2; exit 2 ;;
esac
# The version is Debian's, whichever it was when first fetched: the folder holding a collectd is the one to use.
found() { DIR=$(find "$CACHE" -mindepth 1 -maxdepth 1 -type d -name '[0-9]*' 2>/dev/null | sort | tail -n 1); [[ -n $DIR && -x $DIR/usr/sbin/collectd ]]; }
finish() { ((PRINT == 0)) || echo "$DIR"; exit 0; }

found && finish

die() { echo "collectd/fetch.sh: $*" >&2; exit 1; }
command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
  die "apt-get and dpkg-deb not found: collectd is fetched as Debian's collectd-core package (on other systems install collectd 5.x and set KAIROGRAPH_COLLECTD_HOME to a folder holding usr/sbin/collectd and usr/lib/collectd)"

mkdir -p "$CACHE"
exec 9>"$CACHE/.fetch.lock"
flock 9
found && finish

PARTIAL=$(mktemp -d "$CACHE/partial.XXXXXX")
trap 'rm -rf "$PARTIAL"' EXIT
start=$(date +%s)
# apt-get download needs the package lists; a fresh machine may have none yet, and only root can fetch them.
if ! (cd "$PARTIAL" && apt-get download -q "${PACKAGES[@]}" >&2 2>"$PARTIAL/apt.log"); then
  ((EUID == 0)) || { cat "$PARTIAL/apt.log" >&2; die "apt-get download failed; as root, run 'apt-get update' first"; }
  echo "collectd/fetch.sh: apt-get download failed; updating the package lists once and trying again" >&2
  # Another apt-get (the e2e project's Chromium install) may hold the lists' lock for a while: try a few times.
  for try in 1 2 3 4 5 6; do
    DEBIAN_FRONTEND=noninteractive apt-get update -qq && break
    ((try < 6)) || die "apt-get update failed"
    sleep 10
  done
  (cd "$PARTIAL" && apt-get download -q "${PACKAGES[@]}" >&2 2>"$PARTIAL/apt.log") ||
    { cat "$PARTIAL/apt.log" >&2; die "apt-get download ${PACKAGES[*]} failed"; }
fi
VERSION=$(dpkg-deb -f "$PARTIAL"/collectd-core_*.deb Version)
mkdir "$PARTIAL/unpacked"
for deb in "$PARTIAL"/*.deb; do dpkg-deb -x "$deb" "$PARTIAL/unpacked"; done
# Docs, man pages and the sample config are not needed to run it.
rm -rf "$PARTIAL/unpacked/usr/share/doc" "$PARTIAL/unpacked/usr/share/man"
# The libraries fetched beside collectd, in one folder of a fixed name whatever the machine's multiarch triplet.
LIBS=$PARTIAL/unpacked/deps
mkdir "$LIBS"
mv "$PARTIAL"/unpacked/usr/lib/*-linux-gnu/* "$LIBS"/
missing=$(for f in "$PARTIAL/unpacked/usr/sbin/collectd" "${PLUGINS[@]}"; do
  [[ $f == /* ]] || f=$PARTIAL/unpacked/usr/lib/collectd/$f.so
  [[ -e $f ]] || { echo "$f"; continue; }
  LD_LIBRARY_PATH=$LIBS ldd "$f" | awk '/not found/ { print $1 }'
done | sort -u | tr '\n' ' ')
[[ -z $missing ]] || die "collectd $VERSION's plugins need libraries this machine lacks: $missing (apt-get install them)"
rm -rf "${CACHE:?}/$VERSION"
mv "$PARTIAL/unpacked" "$CACHE/$VERSION"
DIR=$CACHE/$VERSION
echo "collectd/fetch.sh: fetched collectd $VERSION into $DIR in $(($(date +%s) - start)) s" >&2
finish
