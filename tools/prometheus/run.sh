#!/usr/bin/env bash
# Owns the life of a throwaway Prometheus: the binary from build.sh, a fresh mktemp dir (config, TSDB, log), a free
# 127.0.0.1 port, the remote-write receiver on; boots until it is ready, then supervises it and on stop TERM -> wait ->
# KILL and deletes the dir. test/support/prometheus-server.ts drives it; `npm run prometheus` uses --foreground.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: tools/prometheus/run.sh [--foreground] [--port N] [--timeout SECONDS] [--keep-dir] [--config FILE] [-- PROMETHEUS FLAGS...]

Starts the Prometheus that tools/prometheus/build.sh builds (once) on 127.0.0.1, in a fresh temp dir: empty
scrape_configs, the remote-write receiver on for 1.0 and 2.0 messages, every other flag Prometheus's default (a
5-minute --query.lookback-delta among them).
  (default)      supervised: prints "KAIROGRAPH_PROMETHEUS_READY port=.. pid=.. ..." on stdout once /-/ready answers and
                 stops Prometheus when stdin closes (its parent died) or on TERM/INT/HUP.
  --foreground   for a person: prints the URL and how to write to it; runs until Ctrl-C.
  --port N       HTTP port instead of a free one.
  --timeout S    seconds to wait for /-/ready before giving up (default 60).
  --keep-dir     leave the run dir (config, TSDB, log) in place after stop.
  --config FILE  this prometheus.yml (copied into the run dir) instead of tools/prometheus/prometheus.yml, e.g. one
                 that scrapes a target and remote-writes into a gateway.
  -- FLAGS       more Prometheus flags, appended last (e.g. --enable-feature=promql-experimental-functions).
Env: KAIROGRAPH_PROMETHEUS_HOME (the build cache, default .prometheus), KAIROGRAPH_PROMETHEUS_STOP_TIMEOUT (seconds
between TERM and KILL, default 10), TMPDIR (where run dirs go).
USAGE
}

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

FOREGROUND=0 HTTP_PORT='' BOOT_TIMEOUT=60 KEEP_DIR=0 CONFIG=$HERE/prometheus.yml EXTRA=()
STOP_TIMEOUT=${KAIROGRAPH_PROMETHEUS_STOP_TIMEOUT:-10}
while (($#)); do
  case $1 in
    --foreground) FOREGROUND=1 ;;
    --port) HTTP_PORT=${2:?--port needs a number}; shift ;;
    --timeout) BOOT_TIMEOUT=${2:?--timeout needs seconds}; shift ;;
    --keep-dir) KEEP_DIR=1 ;;
    --config) CONFIG=${2:?--config needs a file}; shift ;;
    --) shift; EXTRA=("$@"); break ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
  shift
done
[[ -z $HTTP_PORT || $HTTP_PORT =~ ^[0-9]{1,5}$ ]] || { echo "prometheus: --port must be a number, got \"$HTTP_PORT\"" >&2; exit 2; }

NAME=prometheus
# say, die, now_ms; the stop, cleanup and traps, the parent watcher and the watchdog: the copy the JVM scripts use
# (its JAVA_PID is whatever process it supervises).
# shellcheck source=../lib/supervise.sh
source "$ROOT/tools/lib/supervise.sh"

command -v node >/dev/null || die "'node' not found on PATH (needed to pick a port and check readiness)."
BIN=$("$HERE/build.sh" --print-path) || die "tools/prometheus/build.sh failed (its message is above)"

LOG=''

launch() {
  RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kairograph-prometheus.XXXXXX")
  mkdir -p "$RUN_DIR/data"
  LOG=$RUN_DIR/prometheus.log
  PORT=${HTTP_PORT:-$(free_port)}
  [[ -n $PORT ]] || die "could not pick a free port"
  cp "$CONFIG" "$RUN_DIR/prometheus.yml"
  # setsid: a terminal Ctrl-C reaches only this script, which then stops Prometheus in order (TERM, wait, KILL).
  # The dir is in the command line (--config.file), which the watchdog checks before it kills a pid.
  setsid "$BIN" \
    "--config.file=$RUN_DIR/prometheus.yml" \
    "--storage.tsdb.path=$RUN_DIR/data" \
    "--web.listen-address=127.0.0.1:$PORT" \
    --web.enable-remote-write-receiver \
    --web.remote-write-receiver.accepted-protobuf-messages=prometheus.WriteRequest \
    --web.remote-write-receiver.accepted-protobuf-messages=io.prometheus.write.v2.Request \
    "${EXTRA[@]}" </dev/null >"$LOG" 2>&1 &
  JAVA_PID=$!
  start_watchdog
}

# Sets READY="version=<v>" once the server answers; returns 1 if it died (RC = its code), 2 on timeout.
wait_ready() {
  local deadline=$(($(now_ms) + BOOT_TIMEOUT * 1000))
  while :; do
    if ! kill -0 "$JAVA_PID" 2>/dev/null; then
      wait "$JAVA_PID" && RC=0 || RC=$?
      JAVA_PID=''
      return 1
    fi
    if grep -q 'Server is ready to receive web requests' "$LOG" &&
      READY=$(node "$HERE/http-ping.mjs" "$PORT" 2>>"$RUN_DIR/http-ping.log"); then
      return 0
    fi
    (($(now_ms) < deadline)) || return 2
    sleep 0.1
  done
}

BOOT_START=$(now_ms)
for attempt in 1 2 3; do
  launch
  RC=0 READY=''
  wait_ready && break || status=$?
  if ((status == 2)); then
    say "no answer on http://127.0.0.1:$PORT/-/ready within ${BOOT_TIMEOUT}s; last log lines:"
    tail -n 40 "$LOG" >&2
    exit 1
  fi
  # The port was free when picked but someone may have bound it before Prometheus did: boot again on a new one.
  if [[ -z $HTTP_PORT ]] && grep -q 'address already in use' "$LOG" && ((attempt < 3)); then
    say "port $PORT taken between pick and bind; retrying on a new one"
    rm -rf "$RUN_DIR"
    continue
  fi
  say "Prometheus exited with code $RC during boot; last log lines of $LOG:"
  tail -n 40 "$LOG" >&2
  ((KEEP_DIR)) || say "(rerun with --keep-dir to keep $RUN_DIR)"
  exit 1
done
BOOT_MS=$(($(now_ms) - BOOT_START))
RSS_KB=$(ps -o rss= -p "$JAVA_PID" | tr -d ' ')

echo "KAIROGRAPH_PROMETHEUS_READY port=$PORT pid=$JAVA_PID boot_ms=$BOOT_MS rss_kb=$RSS_KB $READY dir=$RUN_DIR"

if ((FOREGROUND)); then
  cat >&2 <<MSG

Prometheus ${READY#version=} is up on http://127.0.0.1:$PORT (pid $JAVA_PID, ready in ${BOOT_MS} ms, dir $RUN_DIR).
  log:          tail -f $LOG
  query:        curl 'http://127.0.0.1:$PORT/api/v1/query?query=up'
  remote write: http://127.0.0.1:$PORT/api/v1/write (protobuf + snappy, 1.0 or 2.0 messages)
  tests:        KAIROGRAPH_PROMETHEUS=127.0.0.1:$PORT npm run test:prometheus
Ctrl-C stops it and deletes the dir.
MSG
fi
# Idle until Prometheus exits or a trapped signal interrupts the wait (the trap then stops it).
wait "$JAVA_PID" && RC=0 || RC=$?
JAVA_PID=''
say "Prometheus exited by itself with code $RC; last log lines of $LOG:"
tail -n 30 "$LOG" >&2
exit 1
