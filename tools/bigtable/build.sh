#!/usr/bin/env bash
# Owns the Bigtable binaries the tests run: Google's in-memory Bigtable emulator and heroic-writer (a writer of Heroic's
# rows through Google's Go client, ./heroic-writer), built once from the Go module proxy at the versions go.mod and
# go.sum pin, into .bigtable/<version>/ (Go's caches beside them while they build, so a fresh machine needs nothing
# but `go`). Later calls return at once, so run.sh and the test setup call it unconditionally.
#   tools/bigtable/build.sh               build if missing
#   tools/bigtable/build.sh --print-path  build if missing, then print the folder holding both binaries on stdout
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# The emulator's module version, as go.mod requires it; a change of go.mod or go.sum builds into a new folder.
VERSION=$(awk '$1 == "require" && $2 == "cloud.google.com/go/bigtable" { print $3 }' "$HERE/go.mod")
STAMP=$(cat "$HERE/go.mod" "$HERE/go.sum" "$HERE/heroic-writer/main.go" | sha256sum | cut -c1-12)
CACHE=${KAIROGRAPH_BIGTABLE_HOME:-$ROOT/.bigtable}
DIR=$CACHE/$VERSION-$STAMP

PRINT=0
case ${1:-} in
  --print-path) PRINT=1 ;;
  '') ;;
  *) echo "usage: tools/bigtable/build.sh [--print-path]" >&2; exit 2 ;;
esac
finish() { ((PRINT == 0)) || echo "$DIR"; exit 0; }

[[ -n $VERSION ]] || { echo "bigtable/build.sh: no cloud.google.com/go/bigtable requirement in $HERE/go.mod" >&2; exit 1; }
[[ -x $DIR/emulator && -x $DIR/heroic-writer ]] && finish

die() { echo "bigtable/build.sh: $*" >&2; exit 1; }
command -v go >/dev/null ||
  die "'go' not found on PATH: install Go (1.24 or later; the Go module proxy must be reachable)."

mkdir -p "$CACHE"
# Parallel test runs on a fresh machine would otherwise build into the same caches at once.
exec 9>"$CACHE/.build.lock"
flock 9
[[ -x $DIR/emulator && -x $DIR/heroic-writer ]] && finish

PARTIAL=$(mktemp -d "$CACHE/partial.XXXXXX")
trap 'rm -rf "$PARTIAL"' EXIT
echo "bigtable/build.sh: building the Bigtable emulator and heroic-writer ($VERSION) into $DIR (a minute or two on an empty cache)" >&2
start=$(date +%s)
# Everything Go writes stays under the cache; -mod=readonly builds exactly what go.sum pins.
(
  cd "$HERE"
  export GOPATH="$CACHE/go" GOMODCACHE="$CACHE/go/pkg/mod" GOCACHE="$CACHE/go-build" \
    GOFLAGS="-modcacherw -buildvcs=false -mod=readonly" CGO_ENABLED=0 GOTOOLCHAIN=local
  go build -trimpath -o "$PARTIAL/emulator" cloud.google.com/go/bigtable/cmd/emulator &&
    go build -trimpath -o "$PARTIAL/heroic-writer" ./heroic-writer
) || die "go build failed (is the Go module proxy reachable? GOPROXY=$(go env GOPROXY))"
"$PARTIAL/emulator" -h 2>&1 | grep -q -- -port || die "the built emulator does not run: $PARTIAL/emulator -h"
rm -rf "$DIR"
mv "$PARTIAL" "$DIR"
trap - EXIT
# The binaries are the product: Go's caches only speed up a rebuild, which a change of go.mod or go.sum asks for anyway.
rm -rf "$CACHE/go-build" "$CACHE/go"
echo "bigtable/build.sh: built $DIR in $(($(date +%s) - start)) s" >&2
finish
