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
NAME=bigtable/build.sh
GO_NEEDS="1.24 or later"
# The emulator's module version, as go.mod requires it; a change of go.mod or go.sum builds into a new folder.
MODULE=$(awk '$1 == "require" && $2 == "cloud.google.com/go/bigtable" { print $3 }' "$HERE/go.mod")
[[ -n $MODULE ]] || { echo "$NAME: no cloud.google.com/go/bigtable requirement in $HERE/go.mod" >&2; exit 1; }
STAMP=$(cat "$HERE/go.mod" "$HERE/go.sum" "$HERE/heroic-writer/main.go" | sha256sum | cut -c1-12)
CACHE=${KAIROGRAPH_BIGTABLE_HOME:-$ROOT/.bigtable}
PRODUCT=$CACHE/$MODULE-$STAMP
# No --version: go.mod pins it.
VERSION=''
built() { [[ -x $PRODUCT/emulator && -x $PRODUCT/heroic-writer ]]; }
source "$ROOT/tools/lib/go-build.sh" "$@"

echo "$NAME: building the Bigtable emulator and heroic-writer ($MODULE) into $PRODUCT (a minute or two on an empty cache)" >&2
# -mod=readonly builds exactly what go.sum pins, with the Go on PATH.
(
  cd "$HERE"
  go_cached GOFLAGS="-modcacherw -buildvcs=false -mod=readonly" GOTOOLCHAIN=local \
    go build -trimpath -o "$PARTIAL/emulator" cloud.google.com/go/bigtable/cmd/emulator
  go_cached GOFLAGS="-modcacherw -buildvcs=false -mod=readonly" GOTOOLCHAIN=local \
    go build -trimpath -o "$PARTIAL/heroic-writer" ./heroic-writer
)
"$PARTIAL/emulator" -h 2>&1 | grep -q -- -port || die "the built emulator does not run: $PARTIAL/emulator -h"
rm -rf "$PRODUCT"
mv "$PARTIAL" "$PRODUCT"
go_built
