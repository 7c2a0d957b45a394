#!/usr/bin/env bash
# Owns the life of one throwaway Cassandra node: fresh mktemp dir, free ports, boot until CQL answers, then supervise it
# and on stop TERM -> wait -> KILL and delete the dir. test/support/cassandra-server.ts drives it; `npm run cassandra` uses --foreground.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: tools/cassandra/run.sh [--foreground] [--heap SIZE] [--timeout SECONDS] [--keep-dir]

Starts one single-node Cassandra 5.0 on 127.0.0.1 with free ports in a fresh temp dir.
  (default)      supervised: prints "KAIROGRAPH_CASSANDRA_READY port=.. pid=.. ..." on stdout once CQL answers and stops
                 the node when stdin closes (its parent died) or on TERM/INT/HUP.
  --foreground   for a person: prints how to point the gateway at the node and runs until Ctrl-C.
  --heap SIZE    JVM heap (-Xms/-Xmx), e.g. 1g; default from jvm.options.
  --timeout S    seconds to wait for CQL before giving up (default 180).
  --keep-dir     leave the node dir (data, logs) in place after stop.
Env: KAIROGRAPH_CASSANDRA_JVM_OPTS  extra JVM options, appended last (e.g. -XX:NativeMemoryTracking=summary).
USAGE
}

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LIB=${KAIROGRAPH_CASSANDRA_LIB:-$ROOT/.cassandra/lib}

FOREGROUND=0 HEAP='' BOOT_TIMEOUT=180 KEEP_DIR=0
# A drain flushes every memtable; 30 s covers it on a loaded 2-core machine, and after that the data is throwaway anyway.
STOP_TIMEOUT=${KAIROGRAPH_CASSANDRA_STOP_TIMEOUT:-30}
while (($#)); do
  case $1 in
    --foreground) FOREGROUND=1 ;;
    --heap) HEAP=${2:?--heap needs a size}; shift ;;
    --timeout) BOOT_TIMEOUT=${2:?--timeout needs seconds}; shift ;;
    --keep-dir) KEEP_DIR=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
  shift
done

NAME=cassandra
# say, die, now_ms; the stop, cleanup and traps, the parent watcher and the watchdog: one copy for both run scripts.
# shellcheck source=../lib/supervise.sh
source "$ROOT/tools/lib/supervise.sh"

command -v java >/dev/null || die "'java' not found on PATH: install a JDK 17."
command -v node >/dev/null || die "'node' not found on PATH (needed to pick ports and run the CQL check)."
# 5.0 supports JDK 11 and 17 only: 18+ refuses System.setSecurityManager, which 5.0 calls unconditionally.
JAVA_MAJOR=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p')
[[ $JAVA_MAJOR == 17 || $JAVA_MAJOR == 11 ]] ||
  die "Cassandra 5.0 needs JDK 17 (or 11) but 'java' on PATH is ${JAVA_MAJOR:-unknown}: put a JDK 17's bin first on PATH."

"$HERE/fetch.sh"
JAMM=$(compgen -G "$LIB/jamm-*.jar" | head -n1) || true
[[ -n $JAMM ]] || die "no jamm-*.jar in $LIB: delete $LIB and run tools/cassandra/fetch.sh again"

LOG=''
# Cassandra mlockall()s at boot. For a non-root user the 8 MiB memlock limit makes that fail with one WARN; as root
# (CI here) it succeeds and pins every committed page: measured RSS 910 MB instead of 455 MB with a 512m heap.
# Dropping CAP_IPC_LOCK from the JVM's bounding set gives root the non-root behaviour.
NO_MLOCK=()
if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null; then NO_MLOCK=(setpriv --bounding-set=-ipc_lock --); fi

free_ports() {
  # Two listeners open at once so the two ports differ; the kernel hands out ports nobody holds right now.
  node -e '
    const net = require("node:net");
    const open = () => new Promise((ok, ko) => { const s = net.createServer(); s.on("error", ko); s.listen(0, "127.0.0.1", () => ok(s)); });
    Promise.all([open(), open()]).then((ss) => { console.log(ss.map((s) => s.address().port).join(" ")); ss.forEach((s) => s.close()); });
  '
}

launch() {
  RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kairograph-cassandra.XXXXXX")
  mkdir -p "$RUN_DIR"/{conf,data,commitlog,saved_caches,hints,cdc_raw,logs,tmp,triggers}
  LOG=$RUN_DIR/logs/cassandra.log
  read -r NATIVE_PORT STORAGE_PORT < <(free_ports)
  [[ -n ${STORAGE_PORT:-} ]] || die "could not pick free ports"
  sed -e "s#__WORK__#$RUN_DIR#g" -e "s#__NATIVE_PORT__#$NATIVE_PORT#g" -e "s#__STORAGE_PORT__#$STORAGE_PORT#g" \
    "$HERE/cassandra.yaml" >"$RUN_DIR/conf/cassandra.yaml"
  cp "$HERE/logback.xml" "$RUN_DIR/conf/logback.xml"
  local heap=() extra=()
  [[ -n $HEAP ]] && heap=("-Xms$HEAP" "-Xmx$HEAP")
  read -r -a extra <<<"${KAIROGRAPH_CASSANDRA_JVM_OPTS:-}"
  # setsid: a terminal Ctrl-C reaches only this script, which then stops the JVM in order (TERM, wait, KILL).
  # -Djava.io.tmpdir: JNA unpacks its native library there and must be able to exec it.
  setsid "${NO_MLOCK[@]}" java "@$HERE/jvm.options" "${heap[@]}" \
    "-javaagent:$JAMM" \
    "-XX:HeapDumpPath=$RUN_DIR/logs" \
    "-Djava.io.tmpdir=$RUN_DIR/tmp" \
    "-Dcassandra.config=file://$RUN_DIR/conf/cassandra.yaml" \
    "-Dcassandra.storagedir=$RUN_DIR" \
    "-Dcassandra.logdir=$RUN_DIR/logs" \
    "-Dcassandra.triggers_dir=$RUN_DIR/triggers" \
    "-Dlogback.configurationFile=$RUN_DIR/conf/logback.xml" \
    "${extra[@]}" \
    -cp "$LIB/*" org.apache.cassandra.service.CassandraDaemon </dev/null >"$LOG" 2>&1 &
  JAVA_PID=$!
  start_watchdog
}

cql_ping() {
  node "$HERE/cql-ping.mjs" "127.0.0.1:$NATIVE_PORT" 2>>"$RUN_DIR/logs/cql-ping.log"
}

# Sets READY="release=<v> dc=<dc>" once CQL answers; returns 1 if the JVM died (JAVA_RC = its code), 2 on timeout.
wait_ready() {
  local deadline=$(($(now_ms) + BOOT_TIMEOUT * 1000))
  while :; do
    if ! kill -0 "$JAVA_PID" 2>/dev/null; then
      wait "$JAVA_PID" && JAVA_RC=0 || JAVA_RC=$?
      JAVA_PID=''
      return 1
    fi
    # The log line comes first; the driver query is the real check (it also proves the port is ours, not someone else's).
    if grep -q 'Startup complete' "$LOG" && READY=$(cql_ping); then return 0; fi
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
    say "no CQL answer within ${BOOT_TIMEOUT}s; last log lines:"
    tail -n 40 "$LOG" >&2
    exit 1
  fi
  # Ports were free when picked but someone may have bound one before the JVM did: boot again on new ones.
  if grep -qE 'in use by another process|Address already in use|BindException' "$LOG" && ((attempt < 3)); then
    say "port taken between pick and bind (native $NATIVE_PORT, storage $STORAGE_PORT); retrying on new ports"
    rm -rf "$RUN_DIR"
    continue
  fi
  hint=''
  ((JAVA_RC == 3)) && hint=' (3 = exception during startup, or heap exhausted: -XX:+ExitOnOutOfMemoryError)'
  say "JVM exited with code $JAVA_RC during boot$hint; last log lines of $LOG:"
  tail -n 60 "$LOG" >&2
  ((KEEP_DIR)) || say "(rerun with --keep-dir to keep $RUN_DIR)"
  exit 1
done
BOOT_MS=$(($(now_ms) - BOOT_START))
RELEASE=${READY%% *} RELEASE=${RELEASE#release=} DC=${READY##*dc=}
RSS_KB=$(ps -o rss= -p "$JAVA_PID" | tr -d ' ')

echo "KAIROGRAPH_CASSANDRA_READY port=$NATIVE_PORT pid=$JAVA_PID boot_ms=$BOOT_MS rss_kb=$RSS_KB storage_port=$STORAGE_PORT $READY dir=$RUN_DIR"

if ((FOREGROUND)); then
  cat >&2 <<EOF

Cassandra $RELEASE is up on 127.0.0.1:$NATIVE_PORT (pid $JAVA_PID, CQL-ready in ${BOOT_MS} ms, dir $RUN_DIR).
  log:      tail -f $LOG
  gateway:  STORE=cassandra CASSANDRA_CONTACT_POINTS=127.0.0.1:$NATIVE_PORT npm run dev   (local data center: $DC)
  tests:    KAIROGRAPH_CASSANDRA=127.0.0.1:$NATIVE_PORT npm run test:integration   (reuses this node)
Ctrl-C stops it and deletes the dir.
EOF
fi
# Idle until the JVM exits or a trapped signal interrupts the wait (the trap then stops the node).
wait "$JAVA_PID" && JAVA_RC=0 || JAVA_RC=$?
JAVA_PID=''
say "JVM exited by itself with code $JAVA_RC; last log lines of $LOG:"
tail -n 30 "$LOG" >&2
exit 1
