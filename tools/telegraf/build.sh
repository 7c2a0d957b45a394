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
NAME=telegraf/build.sh
GO_NEEDS="1.25.5 or later for $VERSION, as its go.mod asks"
CACHE=${KAIROGRAPH_TELEGRAF_HOME:-$ROOT/.telegraf}
# Another plugin list is another binary: the folder names the list's hash.
DIR=$CACHE/$VERSION-$(echo "$PLUGINS" | sha256sum | cut -c1-8)
PRODUCT=$DIR/telegraf
built() { [[ -x $PRODUCT ]]; }
source "$ROOT/tools/lib/go-build.sh" "$@"

echo "$NAME: building Telegraf $VERSION (plugins: ${PLUGINS#custom,}) into $DIR (a few minutes on an empty cache)" >&2
# The version is stamped where Telegraf's Makefile stamps it, so `telegraf --version` and the User-Agent its outputs
# send name it (a plain `go install` leaves "unknown").
go_install_binary -tags "$PLUGINS" -ldflags "-X github.com/influxdata/telegraf/internal.Version=${VERSION#v}" \
  "github.com/influxdata/telegraf/cmd/telegraf@$VERSION"
go_built
