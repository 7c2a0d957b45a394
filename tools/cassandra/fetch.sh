#!/usr/bin/env bash
# Owns the Cassandra classpath: copies cassandra-all (version pinned in pom.xml) and its runtime jars from Maven Central
# into .cassandra/lib once (tools/lib/maven-fetch.sh); later calls return at once.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
exec "$ROOT/tools/lib/maven-fetch.sh" cassandra-all "$HERE" "${KAIROGRAPH_CASSANDRA_LIB:-$ROOT/.cassandra/lib}" "about 90 s and 70 MB on an empty ~/.m2"
