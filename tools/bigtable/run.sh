#!/usr/bin/env bash
# Owns the life of a throwaway Bigtable emulator (in memory: nothing survives it): the binary from build.sh, a fresh
# mktemp dir (its log), a free 127.0.0.1 port; boots until it accepts connections, then supervises it and on stop
# TERM -> wait -> KILL and deletes the dir. test/support/bigtable-server.ts drives it; `npm run bigtable` uses
# --foreground.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: tools/bigtable/run.sh [--foreground] [--port N] [--timeout SECONDS] [--keep-dir]

Starts Google's Bigtable emulator (built once by tools/bigtable/build.sh) on 127.0.0.1, in memory.
  (default)      supervised: prints "KAIROGRAPH_BIGTABLE_READY port=.. pid=.. ..." on stdout once it accepts
                 connections and stops it when stdin closes (its parent died) or on TERM/INT/HUP.
  --foreground   for a person: prints the address and how to use it; runs until Ctrl-C.
  --port N       port instead of a free one.
  --timeout S    seconds to wait for it before giving up (default 30).
  --keep-dir     leave the run dir (its log) in place after stop.
Env: KAIROGRAPH_BIGTABLE_HOME (the build cache, default .bigtable), KAIROGRAPH_BIGTABLE_STOP_TIMEOUT (seconds between
TERM and KILL, default 5), TMPDIR (where run dirs go).
USAGE
}

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

FOREGROUND=0 FIXED_PORT='' BOOT_TIMEOUT=30 KEEP_DIR=0
STOP_TIMEOUT=${KAIROGRAPH_BIGTABLE_STOP_TIMEOUT:-5}
while (($#)); do
  case $1 in
    --foreground) FOREGROUND=1 ;;
    --port) FIXED_PORT=${2:?--port needs a number}; shift ;;
    --timeout) BOOT_TIMEOUT=${2:?--timeout needs seconds}; shift ;;
    --keep-dir) KEEP_DIR=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
  shift
done
[[ -z $FIXED_PORT || $FIXED_PORT =~ ^[0-9]{1,5}$ ]] || { echo "bigtable: --port must be a number, got \"$FIXED_PORT\"" >&2; exit 2; }

NAME=bigtable
# say, die, now_ms; the stop, cleanup and traps, the parent watcher and the watchdog (JAVA_PID is whatever process
# it supervises).
# shellcheck source=../lib/supervise.sh
source "$ROOT/tools/lib/supervise.sh"

command -v node >/dev/null || die "'node' not found on PATH (needed to pick a port and check readiness)."
BINS=$("$HERE/build.sh" --print-path) || die "tools/bigtable/build.sh failed (its message is above)"

LOG=''

connects() {
  node -e '
    const c = require("node:net").connect(Number(process.argv[1]), "127.0.0.1");
    c.on("connect", () => { c.end(); process.exit(0); });
    c.on("error", () => process.exit(1));
  ' "$1"
}

launch() {
  RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kairograph-bigtable.XXXXXX")
  LOG=$RUN_DIR/emulator.log
  PORT=${FIXED_PORT:-$(free_port)}
  [[ -n $PORT ]] || die "could not pick a free port"
  # Started through a link in the run dir, so that its command line names the dir, which the watchdog checks before
  # it kills a pid.
  ln -s "$BINS/emulator" "$RUN_DIR/emulator"
  setsid "$RUN_DIR/emulator" -host 127.0.0.1 -port "$PORT" </dev/null >"$LOG" 2>&1 &
  JAVA_PID=$!
  start_watchdog
}

# Returns 0 once the emulator accepts connections, 1 if it died (RC = its code), 2 on timeout.
wait_ready() {
  local deadline=$(($(now_ms) + BOOT_TIMEOUT * 1000))
  while :; do
    if ! kill -0 "$JAVA_PID" 2>/dev/null; then
      wait "$JAVA_PID" && RC=0 || RC=$?
      JAVA_PID=''
      return 1
    fi
    if grep -q 'Cloud Bigtable emulator running on' "$LOG" && connects "$PORT"; then return 0; fi
    (($(now_ms) < deadline)) || return 2
    sleep 0.05
  done
}

BOOT_START=$(now_ms)
for attempt in 1 2 3; do
  launch
  RC=0
  wait_ready && break || status=$?
  if ((status == 2)); then
    say "no connection on 127.0.0.1:$PORT within ${BOOT_TIMEOUT}s; last log lines:"
    tail -n 40 "$LOG" >&2
    exit 1
  fi
  # The port was free when picked but someone may have bound it first: boot again on a new one.
  if [[ -z $FIXED_PORT ]] && grep -q 'address already in use' "$LOG" && ((attempt < 3)); then
    say "port $PORT taken between pick and bind; retrying on a new one"
    rm -rf "$RUN_DIR"
    continue
  fi
  say "the emulator exited with code $RC during boot; last log lines of $LOG:"
  tail -n 40 "$LOG" >&2
  exit 1
done
BOOT_MS=$(($(now_ms) - BOOT_START))

echo "KAIROGRAPH_BIGTABLE_READY port=$PORT pid=$JAVA_PID boot_ms=$BOOT_MS writer=$BINS/heroic-writer dir=$RUN_DIR"

if ((FOREGROUND)); then
  cat >&2 <<MSG

The Bigtable emulator is up on 127.0.0.1:$PORT (pid $JAVA_PID, ready in ${BOOT_MS} ms; in memory only).
  clients:  BIGTABLE_EMULATOR_HOST=127.0.0.1:$PORT (any project and instance)
  a table with Heroic's families:
            BIGTABLE_EMULATOR_HOST=127.0.0.1:$PORT $BINS/heroic-writer -project p -instance i -table metrics </dev/null
Ctrl-C stops it and deletes the dir.
MSG
fi
# Idle until the emulator exits or a trapped signal interrupts the wait (the trap then stops it).
wait "$JAVA_PID" && RC=0 || RC=$?
JAVA_PID=''
say "the emulator exited by itself with code $RC; last log lines of $LOG:"
tail -n 30 "$LOG" >&2
exit 1
