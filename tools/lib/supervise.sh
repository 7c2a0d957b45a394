# Sourced by tools/cassandra/run.sh and tools/kairosdb/run.sh: the life of one throwaway JVM in a run directory of its
# own, supervised by the script. Before sourcing, the script sets NAME (the prefix of its messages), STOP_TIMEOUT
# (seconds from TERM to KILL), KEEP_DIR and FOREGROUND (0 or 1); it sets RUN_DIR and JAVA_PID as it launches, and calls
# start_watchdog after each launch. A script that runs several JVMs in RUN_DIR (a Cassandra cluster) keeps the ones
# that are up in JAVA_PIDS (indexed as it likes) and launches the next one as JAVA_PID; stop and watchdog cover both.

RUN_DIR='' JAVA_PID='' WATCHER='' WATCHDOG=''
JAVA_PIDS=()

say() { echo "$NAME: $*" >&2 || true; }
die() { say "$*"; exit 1; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# A port free on 127.0.0.1 now (node is on PATH wherever these scripts run: they check it first).
free_port() {
  node -e '
    const s = require("node:net").createServer();
    s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });
  '
}

# TERM to every JVM at once (a cluster's drains then overlap), then KILL what still runs after STOP_TIMEOUT seconds.
stop_java() {
  local pids=() pid started waited=0 running
  for pid in $JAVA_PID "${JAVA_PIDS[@]}"; do [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null && pids+=("$pid"); done
  JAVA_PID='' JAVA_PIDS=()
  ((${#pids[@]})) || return 0
  started=$(now_ms)
  kill -TERM "${pids[@]}" 2>/dev/null || true
  while :; do
    running=()
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && running+=("$pid"); done
    ((${#running[@]} && waited < STOP_TIMEOUT * 10)) || break
    sleep 0.1
    waited=$((waited + 1))
  done
  if ((${#running[@]})); then
    say "pid ${running[*]} still running ${STOP_TIMEOUT}s after TERM: KILL"
    kill -KILL "${running[@]}" 2>/dev/null || true
  fi
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  say "stopped pid ${pids[*]} in $(($(now_ms) - started)) ms"
}

cleanup() {
  local rc=$?
  # A second Ctrl-C or TERM must not cut the orderly stop short and leave the dir behind.
  trap '' INT TERM HUP
  trap - EXIT
  [[ -z $WATCHER ]] || kill "$WATCHER" 2>/dev/null || true
  [[ -z $WATCHDOG ]] || kill "$WATCHDOG" 2>/dev/null || true
  stop_java
  if [[ -n $RUN_DIR && -d $RUN_DIR ]]; then
    if ((KEEP_DIR)); then say "kept $RUN_DIR"; else rm -rf "$RUN_DIR"; fi
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
# A dead parent leaves our stdout/stderr as broken pipes; the default SIGPIPE would kill us mid-cleanup on the next message.
trap '' PIPE
# No `read -t` here: Debian 12's bash 5.2.15 segfaults when a trap exits out of it, which killed a run script
# mid-cleanup. Hence the stdin watcher below, and `wait` (which trapped signals interrupt cleanly) as the idle loop.

if ((!FOREGROUND)); then
  # Supervised: the parent holds our stdin open and never writes; EOF means it is gone, however it died (even SIGKILL).
  (
    while IFS= read -r _; do :; done
    # Only while we are still its parent: after a SIGKILL of the script, $$ may be someone else's pid by now.
    me=$BASHPID
    [[ $(cut -d' ' -f4 "/proc/$me/stat" 2>/dev/null) == "$$" ]] || exit 0
    kill -TERM $$ 2>/dev/null
    echo "$NAME: stdin closed: parent gone, stopping" >&2 || true
  ) <&0 &
  WATCHER=$!
fi

# If the script is SIGKILLed (a CI timeout killing the process group, the OOM killer) none of its traps run and the
# JVMs, in their own sessions, would live on. This watchdog, in a session of its own too, then kills them and deletes
# the dir; it checks each pid still runs from our dir (its command line names RUN_DIR/) so a recycled pid is never hit.
# Called after every launch, it replaces the previous watchdog with one that knows every JVM up now.
start_watchdog() {
  [[ -z $WATCHDOG ]] || kill "$WATCHDOG" 2>/dev/null || true
  setsid bash -c 'parent=$1 dir=$2 keep=$3; shift 3
    while kill -0 "$parent" 2>/dev/null; do sleep 2; done
    for pid in "$@"; do
      if tr "\0" " " <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$dir/"; then kill -KILL "$pid"; fi
    done
    [[ $keep == 1 ]] || rm -rf "$dir"' "$NAME-watchdog" "$$" "$RUN_DIR" "$KEEP_DIR" $JAVA_PID "${JAVA_PIDS[@]}" </dev/null >/dev/null 2>&1 &
  WATCHDOG=$!
}
