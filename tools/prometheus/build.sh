#!/usr/bin/env bash
# Owns the Prometheus binary the PromQL oracle tests run: builds it once from the Go module proxy into
# .prometheus/<version>/ (Go's module and build caches beside it while it builds, so a fresh machine needs nothing but
# `go`). Later calls return at once, so run.sh and the test setup call it unconditionally.
#   tools/prometheus/build.sh               build if missing
#   tools/prometheus/build.sh --print-path  build if missing, then print the binary's path on stdout
#   tools/prometheus/build.sh --version     print the pinned version
set -euo pipefail

# The one place the version is written. Prometheus 3.x is published as Go module v0.3XX.Y (= Prometheus 3.XX.Y).
VERSION=v0.316.0

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CACHE=${KAIROGRAPH_PROMETHEUS_HOME:-$ROOT/.prometheus}
BIN=$CACHE/$VERSION/prometheus

PRINT=0
case ${1:-} in
  --version) echo "$VERSION"; exit 0 ;;
  --print-path) PRINT=1 ;;
  '') ;;
  *) echo "usage: tools/prometheus/build.sh [--print-path | --version]" >&2; exit 2 ;;
esac
finish() { ((PRINT == 0)) || echo "$BIN"; exit 0; }

[[ -x $BIN ]] && finish

die() { echo "prometheus/build.sh: $*" >&2; exit 1; }
command -v go >/dev/null ||
  die "'go' not found on PATH: install Go (1.26.7 or later for $VERSION, as its go.mod asks; the Go module proxy must be reachable)."

mkdir -p "$CACHE"
# Parallel test runs on a fresh machine would otherwise build into the same caches at once.
exec 9>"$CACHE/.build.lock"
flock 9
[[ -x $BIN ]] && finish

# Semver of the Prometheus release, stamped into the binary so /api/v1/status/buildinfo answers it (a plain
# `go install` leaves it empty).
MINOR=${VERSION#v0.}; PATCH=${MINOR#*.}; MINOR=${MINOR%%.*}
RELEASE="$((MINOR / 100)).$((MINOR % 100)).$PATCH"

PARTIAL=$(mktemp -d "$CACHE/$VERSION.partial.XXXXXX")
trap 'rm -rf "$PARTIAL"' EXIT
echo "prometheus/build.sh: building Prometheus $RELEASE ($VERSION) into $CACHE/$VERSION (several minutes on an empty cache)" >&2
start=$(date +%s)
# Everything Go writes stays under the cache: a machine's own GOPATH and caches are neither needed nor touched.
# -modcacherw lets `rm -rf` delete the module cache; remove_all_sd leaves out the service-discovery SDKs (cloud
# providers, Kubernetes), which are most of the build and which a server with empty scrape_configs never uses.
env GOPATH="$CACHE/go" GOMODCACHE="$CACHE/go/pkg/mod" GOCACHE="$CACHE/go-build" GOBIN="$PARTIAL" \
  GOFLAGS="-modcacherw -buildvcs=false" CGO_ENABLED=0 \
  go install -tags remove_all_sd -trimpath \
  -ldflags "-X github.com/prometheus/common/version.Version=$RELEASE" \
  "github.com/prometheus/prometheus/cmd/prometheus@$VERSION" ||
  die "go install failed (is the Go module proxy reachable? GOPROXY=$(go env GOPROXY))"
[[ -x $PARTIAL/prometheus ]] || die "go install finished but left no binary in $PARTIAL"
"$PARTIAL/prometheus" --version >/dev/null 2>&1 || die "the built binary does not run: $PARTIAL/prometheus --version"
rm -rf "$CACHE/$VERSION"
mkdir -p "$CACHE/$VERSION"
mv "$PARTIAL/prometheus" "$BIN"
# The binary is the product: Go's build cache (over 1 GB) and module cache (about 1 GB) only speed up a rebuild, which
# the marker above never asks for; a version bump downloads and compiles again.
rm -rf "$CACHE/go-build" "$CACHE/go"
echo "prometheus/build.sh: built $BIN in $(($(date +%s) - start)) s" >&2
finish
