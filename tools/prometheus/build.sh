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
NAME=prometheus/build.sh
GO_NEEDS="1.26.7 or later for $VERSION, as its go.mod asks"
CACHE=${KAIROGRAPH_PROMETHEUS_HOME:-$ROOT/.prometheus}
PRODUCT=$CACHE/$VERSION/prometheus
built() { [[ -x $PRODUCT ]]; }
source "$ROOT/tools/lib/go-build.sh" "$@"

# Semver of the Prometheus release, stamped into the binary so /api/v1/status/buildinfo answers it (a plain
# `go install` leaves it empty).
MINOR=${VERSION#v0.}; PATCH=${MINOR#*.}; MINOR=${MINOR%%.*}
RELEASE="$((MINOR / 100)).$((MINOR % 100)).$PATCH"

echo "$NAME: building Prometheus $RELEASE ($VERSION) into $CACHE/$VERSION (several minutes on an empty cache)" >&2
# remove_all_sd leaves out the service-discovery SDKs (cloud providers, Kubernetes), which are most of the build and
# which a server with empty scrape_configs never uses.
go_install_binary -tags remove_all_sd -ldflags "-X github.com/prometheus/common/version.Version=$RELEASE" \
  "github.com/prometheus/prometheus/cmd/prometheus@$VERSION"
go_built
