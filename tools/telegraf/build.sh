#!/usr/bin/env bash
# Owns the Telegraf binary the sender tests run: builds it once from the Go module proxy, with only the plugins those
# tests use (Telegraf's build tags for custom builds), into .telegraf/<version>-<plugins hash>/ (Go's module and build
# caches beside it while it builds, so a fresh machine needs nothing but `go`). Later calls return at once, so the
# test setup calls it unconditionally.
#   tools/telegraf/build.sh               build if missing
#   tools/telegraf/build.sh --print-path  build if missing, then print the binary's path on stdout
#   tools/telegraf/build.sh --version     print the pinned version
set -euo pipefail

# The one place the version is written.
VERSION=v1.37.2
# `custom` turns the selection on (without it every plugin is built); then one tag per plugin: an input that reads
# fixed lines, the line-protocol parser it needs, and every output docs/ingest.md and docs/ingest-tcp.md configure
# with the serializers they need.
PLUGINS=custom,inputs.file,parsers.influx,outputs.influxdb,outputs.influxdb_v2,outputs.http,serializers.prometheusremotewrite,outputs.opentsdb,outputs.graphite,serializers.graphite

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CACHE=${KAIROGRAPH_TELEGRAF_HOME:-$ROOT/.telegraf}
# Another plugin list is another binary: the folder names the list's hash.
DIR=$CACHE/$VERSION-$(echo "$PLUGINS" | sha256sum | cut -c1-8)
BIN=$DIR/telegraf

PRINT=0
case ${1:-} in
  --version) echo "$VERSION"; exit 0 ;;
  --print-path) PRINT=1 ;;
  '') ;;
  *) echo "usage: tools/telegraf/build.sh [--print-path | --version]" >&2; exit 2 ;;
esac
finish() { ((PRINT == 0)) || echo "$BIN"; exit 0; }

[[ -x $BIN ]] && finish

die() { echo "telegraf/build.sh: $*" >&2; exit 1; }
command -v go >/dev/null ||
  die "'go' not found on PATH: install Go (1.25.5 or later for $VERSION, as its go.mod asks; the Go module proxy must be reachable)."

mkdir -p "$CACHE"
# Parallel test runs on a fresh machine would otherwise build into the same caches at once.
exec 9>"$CACHE/.build.lock"
flock 9
[[ -x $BIN ]] && finish

PARTIAL=$(mktemp -d "$CACHE/$VERSION.partial.XXXXXX")
trap 'rm -rf "$PARTIAL"' EXIT
echo "telegraf/build.sh: building Telegraf $VERSION (plugins: ${PLUGINS#custom,}) into $DIR (a few minutes on an empty cache)" >&2
start=$(date +%s)
# Everything Go writes stays under the cache: a machine's own GOPATH and caches are neither needed nor touched.
# -modcacherw lets `rm -rf` delete the module cache. The version is stamped where Telegraf's Makefile stamps it, so
# `telegraf --version` and the User-Agent its outputs send name it (a plain `go install` leaves "unknown").
env GOPATH="$CACHE/go" GOMODCACHE="$CACHE/go/pkg/mod" GOCACHE="$CACHE/go-build" GOBIN="$PARTIAL" \
  GOFLAGS="-modcacherw -buildvcs=false" CGO_ENABLED=0 \
  go install -tags "$PLUGINS" -trimpath \
  -ldflags "-X github.com/influxdata/telegraf/internal.Version=${VERSION#v}" \
  "github.com/influxdata/telegraf/cmd/telegraf@$VERSION" ||
  die "go install failed (is the Go module proxy reachable? GOPROXY=$(go env GOPROXY))"
[[ -x $PARTIAL/telegraf ]] || die "go install finished but left no binary in $PARTIAL"
"$PARTIAL/telegraf" --version >/dev/null 2>&1 || die "the built binary does not run: $PARTIAL/telegraf --version"
rm -rf "$DIR"
mkdir -p "$DIR"
mv "$PARTIAL/telegraf" "$BIN"
# The binary is the product: Go's caches only speed up a rebuild, which the marker above never asks for; a version or
# plugin change downloads and compiles again.
rm -rf "$CACHE/go-build" "$CACHE/go"
echo "telegraf/build.sh: built $BIN in $(($(date +%s) - start)) s" >&2
finish
