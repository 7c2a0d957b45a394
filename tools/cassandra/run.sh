#!/usr/bin/env bash
# Owns the life of throwaway Cassandra nodes (one, or a local cluster on 127.0.0.1..N): fresh mktemp dir, free ports,
# boot until CQL answers, then supervise them and on stop TERM -> wait -> KILL and delete the dir.
# test/support/cassandra-server.ts drives it; `npm run cassandra` uses --foreground.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: tools/cassandra/run.sh [--foreground] [--nodes N] [--restartable] [--crash-safe] [--heap SIZE] [--timeout SECONDS] [--keep-dir]

Starts a throwaway Cassandra 5.0 with free ports in a fresh temp dir: one node on 127.0.0.1, or with --nodes N a
cluster of N nodes on 127.0.0.1..127.0.0.N (the same two ports on each address), booted one after another.
  (default)      supervised: prints "KAIROGRAPH_CASSANDRA_READY port=.. pid=.. ..." on stdout once every node answers
                 CQL and stops the nodes when stdin closes (its parent died) or on TERM/INT/HUP.
  --foreground   for a person: prints how to point the gateway at the node(s) and runs until Ctrl-C.
  --nodes N      a cluster of N nodes (1-9, default 1): data centre "datacenter1", seed 127.0.0.1. A node that dies
                 is reported on stdout ("KAIROGRAPH_CASSANDRA_NODE_DOWN node=.."), not fatal; SIGUSR1 starts the dead
                 nodes again on their own data, one after another ("KAIROGRAPH_CASSANDRA_NODE_READY node=.." each);
                 SIGUSR2 starts them again on empty data dirs (a node replaced by a new one on the same address).
  --restartable  a single node that may die and be started again as a cluster's nodes are (the lines and signals
                 above, the same port and dir); the READY line then carries the cluster's fields too.
  --crash-safe   a single node that a test kills with -9 and starts again on its data, and that must come back with
                 everything it acknowledged: no -Dcassandra.unsafesystem=true (schema changes are flushed, as cluster
                 nodes always run) and commitlog_sync batch (a write is acknowledged once its commit log section is
                 marked, which replay needs; periodic marks every 10 s and loses what came after on a crash).
  --heap SIZE    JVM heap (-Xms/-Xmx) of each node, e.g. 512m; default from jvm.options.
  --timeout S    seconds to wait for a node's CQL before giving up (default 180).
  --keep-dir     leave the run dir (data, logs) in place after stop.
Env: KAIROGRAPH_CASSANDRA_JVM_OPTS  extra JVM options, appended last (e.g. -XX:NativeMemoryTracking=summary).
USAGE
}

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LIB=${KAIROGRAPH_CASSANDRA_LIB:-$ROOT/.cassandra/lib}

FOREGROUND=0 HEAP='' BOOT_TIMEOUT=180 KEEP_DIR=0 NODES=1 RESTARTABLE=0 CRASH_SAFE=0
# A drain flushes every memtable; 30 s covers it on a loaded 2-core machine, and after that the data is throwaway anyway.
STOP_TIMEOUT=${KAIROGRAPH_CASSANDRA_STOP_TIMEOUT:-30}
while (($#)); do
  case $1 in
    --foreground) FOREGROUND=1 ;;
    --nodes) NODES=${2:?--nodes needs a count}; shift ;;
    --restartable) RESTARTABLE=1 ;;
    --crash-safe) CRASH_SAFE=1 ;;
    --heap) HEAP=${2:?--heap needs a size}; shift ;;
    --timeout) BOOT_TIMEOUT=${2:?--timeout needs seconds}; shift ;;
    --keep-dir) KEEP_DIR=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
  shift
done
[[ $NODES =~ ^[1-9]$ ]] || { echo "cassandra: --nodes must be 1 to 9 (got '$NODES')" >&2; exit 2; }

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

# Each node's address, dir and token, indexed 1..NODES; a single node keeps the layout it always had (RUN_DIR itself).
ADDRESS=() NODE_DIR=() TOKEN=()
for n in $(seq 1 "$NODES"); do ADDRESS[n]=127.0.0.$n; done
# Murmur3's ring is [-2^63, 2^63): N tokens evenly apart (0 for a single node, as before).
read -r -a tokens < <(node -e '
  const n = BigInt(process.argv[1]); const out = [];
  for (let i = 0n; i < n; i++) out.push(n === 1n ? 0n : -(2n ** 63n) + (i * 2n ** 64n) / n);
  console.log(out.join(" "));' "$NODES")
for n in $(seq 1 "$NODES"); do TOKEN[n]=${tokens[n - 1]}; done

free_ports() {
  # Two ports free on every node's address at once (a cluster's nodes share them): the kernel hands out ports nobody
  # holds on 127.0.0.1, and the other addresses are checked by binding them too.
  node -e '
    const net = require("node:net");
    const addresses = process.argv.slice(1);
    const open = (port, host) => new Promise((ok, ko) => { const s = net.createServer(); s.on("error", ko); s.listen(port, host, () => ok(s)); });
    (async () => {
      for (let tries = 0; tries < 20; tries++) {
        const first = await Promise.all([open(0, addresses[0]), open(0, addresses[0])]);
        const ports = first.map((s) => s.address().port);
        const others = await Promise.allSettled(addresses.slice(1).flatMap((a) => ports.map((p) => open(p, a))));
        for (const s of [...first, ...others.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []))]) s.close();
        if (others.every((r) => r.status === "fulfilled")) return console.log(ports.join(" "));
      }
      process.exitCode = 1;
    })();
  ' "${ADDRESS[@]}"
}

# Launches node $1 as JAVA_PID, in its dir: created on its first launch, reused when it is started again (its data
# emptied first when $2 is `empty`: a new node in the old one's place; the old life's logs stay).
launch() {
  local n=$1 dir=${NODE_DIR[$1]}
  if [[ ${2:-} == empty ]]; then rm -rf "$dir"/{data,commitlog,saved_caches,hints,cdc_raw}; fi
  mkdir -p "$dir"/{conf,data,commitlog,saved_caches,hints,cdc_raw,logs,tmp,triggers}
  LOG=$dir/logs/cassandra.log
  # A restarted node keeps its last life's log beside the new one; readiness reads the new one only.
  if [[ -f $LOG ]]; then mv "$LOG" "$dir/logs/cassandra.previous.log"; fi
  sed -e "s#__WORK__#$dir#g" -e "s#__NATIVE_PORT__#$NATIVE_PORT#g" -e "s#__STORAGE_PORT__#$STORAGE_PORT#g" \
    -e "s#__ADDRESS__#${ADDRESS[n]}#g" -e "s#__SEED__#${ADDRESS[1]}#g" -e "s#__TOKEN__#${TOKEN[n]}#g" \
    "$HERE/cassandra.yaml" >"$dir/conf/cassandra.yaml"
  # skip_sync (jvm.options) still writes each section's marker, only without fsync: enough for a killed process,
  # whose written pages the kernel keeps, not for a machine that loses power.
  if ((CRASH_SAFE)); then sed -i -e 's/^commitlog_sync: periodic$/commitlog_sync: batch/' -e '/^commitlog_sync_period:/d' "$dir/conf/cassandra.yaml"; fi
  cp "$HERE/logback.xml" "$dir/conf/logback.xml"
  printf 'dc=datacenter1\nrack=rack1\n' >"$dir/conf/cassandra-rackdc.properties"
  local heap=() extra=() unsafe=()
  [[ -n $HEAP ]] && heap=("-Xms$HEAP" "-Xmx$HEAP")
  # unsafesystem skips flushing the schema tables after DDL, which makes DDL fast; with it, a cluster node killed with -9
  # and restarted came back without the keyspace created before the kill ("keyspace kg_cluster does not exist", and
  # reads at ALL failed on it). Only a single node that nobody kills and restarts on its data (no --crash-safe) has it.
  ((NODES > 1 || CRASH_SAFE)) || unsafe=(-Dcassandra.unsafesystem=true)
  read -r -a extra <<<"${KAIROGRAPH_CASSANDRA_JVM_OPTS:-}"
  # setsid: a terminal Ctrl-C reaches only this script, which then stops the JVM in order (TERM, wait, KILL).
  # -Djava.io.tmpdir: JNA unpacks its native library there and must be able to exec it.
  setsid "${NO_MLOCK[@]}" java "@$HERE/jvm.options" "${heap[@]}" "${unsafe[@]}" \
    "-javaagent:$JAMM" \
    "-XX:HeapDumpPath=$dir/logs" \
    "-Djava.io.tmpdir=$dir/tmp" \
    "-Dcassandra.config=file://$dir/conf/cassandra.yaml" \
    "-Dcassandra-rackdc.properties=file://$dir/conf/cassandra-rackdc.properties" \
    "-Dcassandra.storagedir=$dir" \
    "-Dcassandra.logdir=$dir/logs" \
    "-Dcassandra.triggers_dir=$dir/triggers" \
    "-Dlogback.configurationFile=$dir/conf/logback.xml" \
    "${extra[@]}" \
    -cp "$LIB/*" org.apache.cassandra.service.CassandraDaemon </dev/null >"$LOG" 2>&1 &
  JAVA_PID=$!
  start_watchdog
}

# Sets READY="release=<v> dc=<dc>" once node $1 answers CQL; returns 1 if the JVM died (JAVA_RC = its code), 2 on timeout.
wait_ready() {
  local deadline=$(($(now_ms) + BOOT_TIMEOUT * 1000))
  while :; do
    if ! kill -0 "$JAVA_PID" 2>/dev/null; then
      wait "$JAVA_PID" && JAVA_RC=0 || JAVA_RC=$?
      JAVA_PID=''
      return 1
    fi
    # The log line comes first; the driver query is the real check (it also proves the port is ours, not someone else's).
    if grep -q 'Startup complete' "$LOG" && READY=$(node "$HERE/cql-ping.mjs" "${ADDRESS[$1]}:$NATIVE_PORT" 2>>"${LOG%/*}/cql-ping.log"); then
      return 0
    fi
    (($(now_ms) < deadline)) || return 2
    sleep 0.25
  done
}

# Boots node $1 until it answers CQL and moves it into JAVA_PIDS; returns 3 when one of its ports was taken (the caller
# may pick new ones). Anything else that stops the boot ends the script with the log tail.
boot_node() {
  local n=$1 status=0 hint=''
  launch "$n" "${2:-}"
  JAVA_RC=0 READY=''
  wait_ready "$n" || status=$?
  if ((status == 0)); then
    JAVA_PIDS[n]=$JAVA_PID
    JAVA_PID=''
    return 0
  fi
  if ((status == 2)); then
    say "node $n: no CQL answer within ${BOOT_TIMEOUT}s; last log lines:"
    tail -n 40 "$LOG" >&2
    exit 1
  fi
  if grep -qE 'in use by another process|Address already in use|BindException' "$LOG"; then return 3; fi
  ((JAVA_RC == 3)) && hint=' (3 = exception during startup, or heap exhausted: -XX:+ExitOnOutOfMemoryError)'
  say "node $n: JVM exited with code $JAVA_RC during boot$hint; last log lines of $LOG:"
  tail -n 60 "$LOG" >&2
  ((KEEP_DIR)) || say "(rerun with --keep-dir to keep $RUN_DIR)"
  exit 1
}

BOOT_START=$(now_ms)
for attempt in 1 2 3; do
  RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/kairograph-cassandra.XXXXXX")
  for n in $(seq 1 "$NODES"); do
    if ((NODES == 1)); then NODE_DIR[n]=$RUN_DIR; else NODE_DIR[n]=$RUN_DIR/node$n; fi
  done
  NATIVE_PORT='' STORAGE_PORT=''
  read -r NATIVE_PORT STORAGE_PORT < <(free_ports) || true
  [[ -n $STORAGE_PORT ]] || die "could not pick two ports free on ${ADDRESS[*]}"
  taken=0
  # One after another: each node joins a cluster that already answers, and two JVMs never boot at once on 2 cores.
  for n in $(seq 1 "$NODES"); do
    started=$(now_ms)
    boot_node "$n" || { taken=1; break; }
    ((NODES == 1)) || say "node $n up on ${ADDRESS[n]}:$NATIVE_PORT (pid ${JAVA_PIDS[n]}, CQL-ready in $(($(now_ms) - started)) ms)"
  done
  ((taken)) || break
  # Ports were free when picked but someone may have bound one before a JVM did: boot again on new ones.
  ((attempt < 3)) || die "a port was taken between pick and bind three times; last log lines: $(tail -n 5 "$LOG")"
  say "port taken between pick and bind (native $NATIVE_PORT, storage $STORAGE_PORT); retrying on new ports"
  stop_java
  rm -rf "$RUN_DIR"
done
BOOT_MS=$(($(now_ms) - BOOT_START))
RELEASE=${READY%% *} RELEASE=${RELEASE#release=} DC=${READY##*dc=}
RSS_KB=$(ps -o rss= -p "${JAVA_PIDS[1]}" | tr -d ' ')
PIDS=$(IFS=,; echo "${JAVA_PIDS[*]}")
CONTACT_POINTS=$(IFS=,; echo "${ADDRESS[*]/%/:$NATIVE_PORT}")
CLUSTER_FIELDS=''
((NODES == 1 && !RESTARTABLE)) || CLUSTER_FIELDS=" nodes=$NODES pids=$PIDS contact_points=$CONTACT_POINTS"

echo "KAIROGRAPH_CASSANDRA_READY port=$NATIVE_PORT pid=${JAVA_PIDS[1]} boot_ms=$BOOT_MS rss_kb=$RSS_KB storage_port=$STORAGE_PORT $READY$CLUSTER_FIELDS dir=$RUN_DIR"

if ((FOREGROUND)); then
  if ((NODES == 1)); then
    up="Cassandra $RELEASE is up on 127.0.0.1:$NATIVE_PORT (pid ${JAVA_PIDS[1]}, CQL-ready in ${BOOT_MS} ms, dir $RUN_DIR)."
  else
    up="A $NODES-node Cassandra $RELEASE cluster is up on $CONTACT_POINTS (pids $PIDS, all CQL-ready in ${BOOT_MS} ms, dir $RUN_DIR).
  keyspace: CASSANDRA_REPLICATION=\"{'class': 'NetworkTopologyStrategy', '$DC': $NODES}\" creates it replicated on every node
  a node down: kill -9 <pid>; then kill -USR1 $$ starts the dead nodes again on their own data"
  fi
  cat >&2 <<EOF

$up
  log:      tail -f ${NODE_DIR[1]}/logs/cassandra.log
  gateway:  STORE=cassandra CASSANDRA_CONTACT_POINTS=$CONTACT_POINTS npm run dev   (local data center: $DC)
  tests:    KAIROGRAPH_CASSANDRA=127.0.0.1:$NATIVE_PORT npm run test:integration   (reuses node 1)
Ctrl-C stops it and deletes the dir.
EOF
fi

if ((NODES == 1 && !RESTARTABLE)); then
  # Idle until the JVM exits or a trapped signal interrupts the wait (the trap then stops the node).
  JAVA_PID=${JAVA_PIDS[1]} JAVA_PIDS=()
  wait "$JAVA_PID" && JAVA_RC=0 || JAVA_RC=$?
  JAVA_PID=''
  say "JVM exited by itself with code $JAVA_RC; last log lines of $LOG:"
  tail -n 30 "$LOG" >&2
  exit 1
fi

# A cluster (or a --restartable node) outlives a node: a dead one is reported, and SIGUSR1 starts every dead node
# again on its own dir, SIGUSR2 on an emptied one.
RESTART=''
trap 'RESTART=own' USR1
trap 'RESTART=empty' USR2
while :; do
  # `wait` on a sleep, not a plain sleep: a trapped signal (USR1, TERM) interrupts it at once.
  sleep 1 &
  wait $! 2>/dev/null || true
  alive=0
  for n in $(seq 1 "$NODES"); do
    pid=${JAVA_PIDS[n]:-}
    [[ -n $pid ]] || continue
    if kill -0 "$pid" 2>/dev/null; then alive=$((alive + 1)); continue; fi
    wait "$pid" && rc=0 || rc=$?
    unset 'JAVA_PIDS[n]'
    say "node $n (pid $pid) exited with code $rc; kill -USR1 $$ starts it again"
    echo "KAIROGRAPH_CASSANDRA_NODE_DOWN node=$n pid=$pid rc=$rc"
  done
  if [[ -n $RESTART ]]; then
    data=$RESTART RESTART=''
    for n in $(seq 1 "$NODES"); do
      [[ -z ${JAVA_PIDS[n]:-} ]] || continue
      started=$(now_ms)
      boot_node "$n" "$data" || die "node $n: one of its ports was taken while it was down"
      echo "KAIROGRAPH_CASSANDRA_NODE_READY node=$n pid=${JAVA_PIDS[n]} boot_ms=$(($(now_ms) - started)) address=${ADDRESS[n]} data=$data dir=${NODE_DIR[n]}"
      alive=$((alive + 1))
    done
  fi
  ((alive > 0 || RESTARTABLE)) || die "every node has exited"
done
