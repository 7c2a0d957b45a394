#!/usr/bin/env bash
# Owns the KairosDB classpath: copies kairosdb (version pinned in pom.xml) and its runtime jars from Maven Central into
# .kairosdb/lib once (tools/lib/maven-fetch.sh); later calls return at once.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
exec "$ROOT/tools/lib/maven-fetch.sh" kairosdb "$HERE" "${KAIROGRAPH_KAIROSDB_LIB:-$ROOT/.kairosdb/lib}" "about 35 s and 30 MB on an empty ~/.m2"
