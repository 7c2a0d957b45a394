#!/usr/bin/env bash
# Copies one Maven artifact (its version pinned in a pom.xml) and its runtime jars from Maven Central into a lib folder
# once; later calls return at once, so the run scripts and the test setup call it unconditionally. Used by
# tools/cassandra/fetch.sh and tools/kairosdb/fetch.sh.
#   tools/lib/maven-fetch.sh ARTIFACT_ID POM_DIR LIB_DIR "SIZE NOTE"
set -euo pipefail

ARTIFACT=${1:?artifact id} POM_DIR=${2:?pom dir} LIB=${3:?lib dir} NOTE=${4:-}
# The pom is the one place the version is written; the jar named after it marks a complete copy.
VERSION=$(sed -n "/<artifactId>$ARTIFACT<\/artifactId>/{n;s/.*<version>\(.*\)<\/version>.*/\1/p;}" "$POM_DIR/pom.xml")
[[ -n $VERSION ]] || { echo "fetch.sh: cannot read the $ARTIFACT version from $POM_DIR/pom.xml" >&2; exit 1; }
MARKER=$LIB/$ARTIFACT-$VERSION.jar

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
COPY=(-B -q -f "$POM_DIR/pom.xml" org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies
  -DincludeScope=runtime "-DoutputDirectory=$PARTIAL")
echo "fetch.sh: copying $ARTIFACT $VERSION and its dependencies into $LIB${NOTE:+ ($NOTE)}" >&2
start=$(date +%s)
# Offline first, so a machine whose ~/.m2 already holds everything needs no network.
if ! mvn -o "${COPY[@]}" >"$PARTIAL.offline.log" 2>&1; then
  rm -f "$PARTIAL"/*.jar
  mvn "${COPY[@]}" || die "Maven could not resolve $ARTIFACT $VERSION (is Maven Central reachable?)"
fi
rm -f "$PARTIAL.offline.log"
[[ -f $PARTIAL/$ARTIFACT-$VERSION.jar ]] || die "Maven finished but $ARTIFACT-$VERSION.jar is not in its output"
rm -rf "$LIB"
mv "$PARTIAL" "$LIB"
echo "fetch.sh: $(ls "$LIB" | wc -l) jars in $LIB after $(( $(date +%s) - start )) s" >&2
