#!/usr/bin/env bash
# Owns the life of one throwaway KairosDB 1.3: fresh mktemp dir, free HTTP port, boot until /api/v1/version answers, then
# supervise it and on stop TERM -> wait -> KILL and delete the dir. test/support/kairosdb-server.ts drives it; `npm run
# kairosdb` uses --foreground. Its data lives in the Cassandra keyspace it is given, which outlives it on purpose.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: tools/kairosdb/run.sh --cassandra HOST:PORT [--keyspace NAME] [--foreground] [--port N] [--heap SIZE]
                             [--data-points-with CLAUSE] [--tag-indexed JSON] [--timeout SECONDS] [--keep-dir]

Starts KairosDB 1.3.0-1 on 127.0.0.1 (REST on a free port) over an existing Cassandra, in a fresh temp dir.
  --cassandra H:P   the Cassandra to use (default: env KAIROGRAPH_CASSANDRA); `npm run cassandra` starts one.
  --keyspace NAME   KairosDB's keyspace, created with its tables when missing (default kairosdb).
  (default)         supervised: prints "KAIROGRAPH_KAIROSDB_READY port=.. pid=.. ..." on stdout once REST answers and
                    stops KairosDB when stdin closes (its parent died) or on TERM/INT/HUP.
  --foreground      for a person: prints how to point clients, the gateway and the tests at it; runs until Ctrl-C.
  --port N          HTTP port instead of a free one.
  --telnet          also serve KairosDB's telnet protocol, on a free port of 127.0.0.1 (telnet_port= on the ready line).
  --heap SIZE       JVM -Xmx, e.g. 512m; default from jvm.options.
  --data-points-with CLAUSE
                    table_create_with.data_points, for a data_points table KairosDB creates (default "": the
                    table Kairograph creates; KairosDB's own default is "WITH COMPACT STORAGE").
  --tag-indexed JSON
                    write_cluster.tag_indexed_row_key_lookup_metrics (default {}: no tag index), e.g. '{"cpu":["host"]}'.
  --timeout S       seconds to wait for REST before giving up (default 120).
  --keep-dir        leave the run dir (config, logs, ingest queue) in place after stop.
Env: KAIROGRAPH_KAIROSDB_JVM_OPTS  extra JVM options, appended last (e.g. -XX:NativeMemoryTracking=summary).
USAGE
}

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LIB=${KAIROGRAPH_KAIROSDB_LIB:-$ROOT/.kairosdb/lib}

FOREGROUND=0 CASSANDRA=${KAIROGRAPH_CASSANDRA:-} KEYSPACE=kairosdb HTTP_PORT='' HEAP='' DATA_POINTS_WITH='' BOOT_TIMEOUT=120
TAG_INDEXED='{}'
KEEP_DIR=0
TELNET=0
# Measured: 2-5 s from TERM to exit (closing the driver's connections is most of it); the rest is margin for a busy machine.
STOP_TIMEOUT=${KAIROGRAPH_KAIROSDB_STOP_TIMEOUT:-20}
while (($#)); do
  case $1 in
    --cassandra) CASSANDRA=${2:?--cassandra needs host:port}; shift ;;
    --keyspace) KEYSPACE=${2:?--keyspace needs a name}; shift ;;
    --foreground) FOREGROUND=1 ;;
    --port) HTTP_PORT=${2:?--port needs a number}; shift ;;
    --telnet) TELNET=1 ;;
    --heap) HEAP=${2:?--heap needs a size}; shift ;;
    --data-points-with) DATA_POINTS_WITH=${2?--data-points-with needs a clause (may be "")}; shift ;;
    --tag-indexed) TAG_INDEXED=${2:?--tag-indexed needs JSON}; shift ;;
    --timeout) BOOT_TIMEOUT=${2:?--timeout needs seconds}; shift ;;
    --keep-dir) KEEP_DIR=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
  shift
done

NAME=kairosdb
# say, die, now_ms; the stop, cleanup and traps, the parent watcher and the watchdog: one copy for both run scripts.
# shellcheck source=../lib/supervise.sh
source "$ROOT/tools/lib/supervise.sh"

# Every value below is pasted into HOCON by sed: checked here, so none can end a string or the sed expression.
[[ -n $CASSANDRA ]] || die "no Cassandra: pass --cassandra host:port or set KAIROGRAPH_CASSANDRA (\`npm run cassandra\` starts one)."
[[ $CASSANDRA =~ ^[A-Za-z0-9._-]+:[0-9]{1,5}$ ]] || die "--cassandra must be host:port, got \"$CASSANDRA\""
# Cassandra's own rule for keyspace names.
[[ $KEYSPACE =~ ^[A-Za-z0-9_]{1,48}$ ]] || die "--keyspace must be 1-48 letters, digits or _, got \"$KEYSPACE\""
[[ -z $HTTP_PORT || $HTTP_PORT =~ ^[0-9]{1,5}$ ]] || die "--port must be a number, got \"$HTTP_PORT\""
[[ $DATA_POINTS_WITH =~ ^[A-Za-z0-9\ _=,:\'{}().-]*$ ]] ||
  die "--data-points-with may hold letters, digits, spaces and _=,:'{}().- only, got \"$DATA_POINTS_WITH\""
TAG_INDEXED_CHARS='^[][A-Za-z0-9 _,:"{}.*-]*$'
[[ $TAG_INDEXED =~ $TAG_INDEXED_CHARS ]] || die "--tag-indexed may hold letters, digits, spaces and _,:\"{}[].*- only, got \"$TAG_INDEXED\""

command -v java >/dev/null || die "'java' not found on PATH: install a JDK 17."
command -v node >/dev/null || die "'node' not found on PATH (needed to pick a port and to check Cassandra and REST)."
# Tried on 17 only; the --add-opens of jvm.options are what 16+ needs, and 11 needs none of them but accepts them.
JAVA_MAJOR=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p')
[[ $JAVA_MAJOR == 17 || $JAVA_MAJOR == 11 ]] ||
  die "this KairosDB setup is made for JDK 17 (or 11) but 'java' on PATH is ${JAVA_MAJOR:-unknown}: put a JDK 17's bin first on PATH."

"$HERE/fetch.sh"
MAIN_JAR=$(compgen -G "$LIB/kairosdb-*.jar" | head -n1) || true
[[ -n $MAIN_JAR ]] || die "no kairosdb-*.jar in $LIB: delete $LIB and run tools/kairosdb/fetch.sh again"

# When nothing listens there, say so before a JVM starts: KairosDB's own report of it is a driver stack trace.
node -e '
  const [host, port] = process.argv[1].split(":");
  const socket = require("node:net").connect({ host, port: Number(port), timeout: 3000 });
  socket.on("connect", () => socket.destroy()).on("timeout", () => socket.destroy(new Error("timed out")));
  socket.on("error", (err) => { console.error(err.message); process.exitCode = 1; });
' "$CASSANDRA" ||
  die "nothing listens on $CASSANDRA (see the line above): start a Cassandra with \`npm run cassandra\`."

LOG=''

launch() {
  RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kairograph-kairosdb.XXXXXX")
  # conf/ holds kairosdb.conf alone: Main also loads every other *.conf and *.properties beside it.
  mkdir -p "$RUN_DIR"/{conf,logs,queue,tmp,webroot}
  LOG=$RUN_DIR/logs/kairosdb.log
  PORT=${HTTP_PORT:-$(free_port)}
  [[ -n $PORT ]] || die "could not pick a free port"
  # Telnet is off unless asked for: on KairosDB's 0.0.0.0:4242 a second instance could not start.
  TELNET_SERVICE='<disabled>' TELNET_PORT=0
  if ((TELNET)); then
    TELNET_SERVICE=org.kairosdb.core.telnet.TelnetServerModule
    TELNET_PORT=$(free_port)
    [[ -n $TELNET_PORT ]] || die "could not pick a free telnet port"
  fi
  sed -e "s#__WORK__#$RUN_DIR#g" -e "s#__HTTP_PORT__#$PORT#g" -e "s#__CASSANDRA__#$CASSANDRA#g" \
    -e "s#__TELNET_SERVICE__#$TELNET_SERVICE#g" -e "s#__TELNET_PORT__#$TELNET_PORT#g" \
    -e "s#__KEYSPACE__#$KEYSPACE#g" -e "s#__DATA_POINTS_WITH__#$DATA_POINTS_WITH#g" -e "s#__TAG_INDEXED__#$TAG_INDEXED#g" \
    "$HERE/kairosdb.conf" >"$RUN_DIR/conf/kairosdb.conf"
  cp "$HERE/logback.xml" "$RUN_DIR/conf/logback.xml"
  local heap=() extra=()
  [[ -n $HEAP ]] && heap=("-Xmx$HEAP")
  read -r -a extra <<<"${KAIROGRAPH_KAIROSDB_JVM_OPTS:-}"
  # setsid: a terminal Ctrl-C reaches only this script, which then stops the JVM in order (TERM, wait, KILL).
  # cd: KairosDB resolves a few defaults (its H2 path, the web root) against the working dir; ours is the run dir.
  # -Djava.io.tmpdir: the query cache and lz4's native library go there, so they go with the dir.
  (
    cd "$RUN_DIR"
    exec setsid java "@$HERE/jvm.options" "${heap[@]}" \
      "-Djava.io.tmpdir=$RUN_DIR/tmp" \
      "-Dlogback.configurationFile=$RUN_DIR/conf/logback.xml" \
      "-XX:HeapDumpPath=$RUN_DIR/logs" \
      "${extra[@]}" \
      -cp "$LIB/*" org.kairosdb.core.Main -c run -p "$RUN_DIR/conf/kairosdb.conf"
  ) </dev/null >"$LOG" 2>&1 &
  JAVA_PID=$!
  start_watchdog
}

# Sets READY="version=<v>" once REST answers; returns 1 if the JVM died (JAVA_RC = its code), 2 on timeout.
wait_ready() {
  local deadline=$(($(now_ms) + BOOT_TIMEOUT * 1000))
  while :; do
    if ! kill -0 "$JAVA_PID" 2>/dev/null; then
      wait "$JAVA_PID" && JAVA_RC=0 || JAVA_RC=$?
      JAVA_PID=''
      return 1
    fi
    # Main logs this once every service, the web server last, has started; the HTTP answer is the real check.
    if grep -q 'KairosDB service started' "$LOG" && READY=$(node "$HERE/http-ping.mjs" "$PORT" 2>>"$RUN_DIR/logs/http-ping.log"); then
      return 0
    fi
    (($(now_ms) < deadline)) || return 2
    sleep 0.25
  done
}

BOOT_START=$(now_ms)
for attempt in 1 2 3; do
  launch
  JAVA_RC=0 READY=''
  wait_ready && break || status=$?
  if ((status == 2)); then
    say "no answer on http://127.0.0.1:$PORT/api/v1/version within ${BOOT_TIMEOUT}s; last log lines:"
    tail -n 40 "$LOG" >&2
    exit 1
  fi
  # The port was free when picked but someone may have bound it before Jetty did: boot again on a new one.
  if [[ -z $HTTP_PORT ]] && grep -q 'BindException\|Address already in use' "$LOG" && ((attempt < 3)); then
    say "port $PORT taken between pick and bind; retrying on a new one"
    rm -rf "$RUN_DIR"
    continue
  fi
  say "JVM exited with code $JAVA_RC during boot; last log lines of $LOG:"
  tail -n 60 "$LOG" >&2
  ((KEEP_DIR)) || say "(rerun with --keep-dir to keep $RUN_DIR)"
  exit 1
done
BOOT_MS=$(($(now_ms) - BOOT_START))
RSS_KB=$(ps -o rss= -p "$JAVA_PID" | tr -d ' ')

echo "KAIROGRAPH_KAIROSDB_READY port=$PORT telnet_port=$TELNET_PORT pid=$JAVA_PID boot_ms=$BOOT_MS rss_kb=$RSS_KB $READY keyspace=$KEYSPACE cassandra=$CASSANDRA dir=$RUN_DIR"

if ((FOREGROUND)); then
  cat >&2 <<EOF

KairosDB ${READY#version=} is up on http://127.0.0.1:$PORT (pid $JAVA_PID, REST-ready in ${BOOT_MS} ms, dir $RUN_DIR),
keyspace $KEYSPACE on Cassandra $CASSANDRA.
  log:      tail -f $LOG
  REST:     curl http://127.0.0.1:$PORT/api/v1/version
  gateway on the same keyspace:
            STORE=cassandra CASSANDRA_CONTACT_POINTS=$CASSANDRA CASSANDRA_KEYSPACE=$KEYSPACE npm run dev
  tests:    KAIROGRAPH_CASSANDRA=$CASSANDRA KAIROGRAPH_KAIROSDB=127.0.0.1:$PORT KAIROGRAPH_KAIROSDB_KEYSPACE=$KEYSPACE npm run test:kairosdb
Ctrl-C stops it and deletes the dir; the keyspace stays in Cassandra.
EOF
fi
# Idle until the JVM exits or a trapped signal interrupts the wait (the trap then stops KairosDB).
wait "$JAVA_PID" && JAVA_RC=0 || JAVA_RC=$?
JAVA_PID=''
say "JVM exited by itself with code $JAVA_RC; last log lines of $LOG:"
tail -n 30 "$LOG" >&2
exit 1
