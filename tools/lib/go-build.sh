# Sourced by the build scripts of the tools the tests build from the Go module proxy (tools/prometheus, tools/telegraf,
# tools/bigtable): everything around their own `go` command. Before sourcing it with the script's arguments, a script
# sets NAME (the prefix of its messages, "telegraf/build.sh"), CACHE (its gitignored folder), PRODUCT (the binary or
# folder it makes, which --print-path prints), GO_NEEDS (the Go its module asks for, for the message when `go` is
# missing) and VERSION (what --version prints; empty: no --version), and defines `built` (true once PRODUCT is whole).
#
# Sourcing parses the arguments, and ends the script at once (exit 0) when PRODUCT is built, also when another run
# built it while this one waited for the lock. Otherwise it returns holding the lock, with PARTIAL, an empty folder
# deleted on exit, to build into. The script then builds through go_install_binary, or through go_cached and checks
# and moves what it built into place itself, and ends with go_built.

case ${1:-} in
  --version) [[ -n $VERSION ]] || { echo "usage: tools/$NAME [--print-path]" >&2; exit 2; }; echo "$VERSION"; exit 0 ;;
  --print-path) PRINT=1 ;;
  '') PRINT=0 ;;
  *) echo "usage: tools/$NAME [--print-path${VERSION:+ | --version}]" >&2; exit 2 ;;
esac

finish() { ((PRINT == 0)) || echo "$PRODUCT"; exit 0; }
die() { echo "$NAME: $*" >&2; exit 1; }

built && finish
command -v go >/dev/null ||
  die "'go' not found on PATH: install Go ($GO_NEEDS; the Go module proxy must be reachable)."

mkdir -p "$CACHE"
# Parallel test runs on a fresh machine would otherwise build into the same caches at once.
exec 9>"$CACHE/.build.lock"
flock 9
built && finish

PARTIAL=$(mktemp -d "$CACHE/partial.XXXXXX")
trap 'rm -rf "$PARTIAL"' EXIT
BUILD_START=$(date +%s)

# Runs `env ASSIGNMENTS... COMMAND...` with everything Go writes under the cache, so that a machine's own GOPATH and
# caches are neither needed nor touched; -modcacherw lets `rm -rf` delete the module cache. A script's own
# assignments come after these and win.
go_cached() {
  env GOPATH="$CACHE/go" GOMODCACHE="$CACHE/go/pkg/mod" GOCACHE="$CACHE/go-build" \
    GOFLAGS="-modcacherw -buildvcs=false" CGO_ENABLED=0 "$@" ||
    die "the Go build failed (is the Go module proxy reachable? GOPROXY=$(go env GOPROXY))"
}

# For a PRODUCT that is one binary `go install` makes: installs it with the arguments given (tags, ldflags,
# package@version), checks that it runs (`--version`), and puts it in place.
go_install_binary() {
  local bin
  bin=$(basename "$PRODUCT")
  go_cached GOBIN="$PARTIAL" go install -trimpath "$@"
  [[ -x $PARTIAL/$bin ]] || die "go install finished but left no binary in $PARTIAL"
  "$PARTIAL/$bin" --version >/dev/null 2>&1 || die "the built binary does not run: $PARTIAL/$bin --version"
  rm -rf "$(dirname "$PRODUCT")"
  mkdir -p "$(dirname "$PRODUCT")"
  mv "$PARTIAL/$bin" "$PRODUCT"
}

# PRODUCT is in place. It is all that is kept: Go's build and module caches (each up to a GB or more) only speed up a
# rebuild, and a rebuild comes only with a new version, which downloads and compiles again anyway.
go_built() {
  rm -rf "$CACHE/go-build" "$CACHE/go"
  echo "$NAME: built $PRODUCT in $(($(date +%s) - BUILD_START)) s" >&2
  finish
}
