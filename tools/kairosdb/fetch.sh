#!/usr/bin/env bash
# Owns the KairosDB classpath: copies kairosdb (version pinned in pom.xml) and its runtime jars from Maven Central into
# .kairosdb/lib once; later calls return at once, so run.sh and the test setup call it unconditionally.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LIB=${KAIROGRAPH_KAIROSDB_LIB:-$ROOT/.kairosdb/lib}
# The pom is the one place the version is written; the jar named after it marks a complete copy.
VERSION=$(sed -n '/<artifactId>kairosdb<\/artifactId>/{n;s/.*<version>\(.*\)<\/version>.*/\1/p;}' "$HERE/pom.xml")
[[ -n $VERSION ]] || { echo "fetch.sh: cannot read the kairosdb version from $HERE/pom.xml" >&2; exit 1; }
MARKER=$LIB/kairosdb-$VERSION.jar

[[ -f $MARKER ]] && exit 0

die() { echo "fetch.sh: $*" >&2; exit 1; }
command -v java >/dev/null || die "'java' not found on PATH: install a JDK 17 (Debian: apt-get install openjdk-17-jdk-headless)."
command -v mvn >/dev/null || die "'mvn' not found on PATH: install Maven 3.8+ (Debian: apt-get install maven)."

mkdir -p "$(dirname "$LIB")"
# Parallel test runs on a fresh machine would otherwise copy into the same folder at once.
exec 9>"$(dirname "$LIB")/.fetch.lock"
flock 9
[[ -f $MARKER ]] && exit 0

PARTIAL=$(mktemp -d "$LIB.partial.XXXXXX")
trap 'rm -rf "$PARTIAL" "$PARTIAL.offline.log"' EXIT
# The plugin version is pinned: Maven 3.8's default copy-dependencies (2.8) is too old for this.
COPY=(-B -q -f "$HERE/pom.xml" org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies
  -DincludeScope=runtime "-DoutputDirectory=$PARTIAL")
echo "fetch.sh: copying kairosdb $VERSION and its dependencies into $LIB (about 35 s and 30 MB on an empty ~/.m2)" >&2
start=$(date +%s)
# Offline first, so a machine whose ~/.m2 already holds everything needs no network.
if ! mvn -o "${COPY[@]}" >"$PARTIAL.offline.log" 2>&1; then
  rm -f "$PARTIAL"/*.jar
  mvn "${COPY[@]}" || die "Maven could not resolve kairosdb $VERSION (is Maven Central reachable?)"
fi
rm -f "$PARTIAL.offline.log"
[[ -f $PARTIAL/kairosdb-$VERSION.jar ]] || die "Maven finished but kairosdb-$VERSION.jar is not in its output"
rm -rf "$LIB"
mv "$PARTIAL" "$LIB"
echo "fetch.sh: $(ls "$LIB" | wc -l) jars in $LIB after $(( $(date +%s) - start )) s" >&2
