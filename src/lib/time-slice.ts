/**
 * Cooperative time slicing for the one thread every request shares. Long work (the engine's merge, planning over many
 * series, writing a large answer) calls `yieldIfDue(lane)` between units of work; once the running slice has used
 * SLICE_MS, the caller queues in its lane (one per request) and one slice runs per event-loop turn, so I/O (a health
 * check, a new request) never waits behind more than about one slice. Lanes that have had less than SHORT_MS go first,
 * the least-served first: a small query finishes in a few slices however many heavy requests are running. The others
 * take turns in the order they asked, so heavy requests share what is left evenly and none waits behind newer ones.
 */

/**
 * Long enough that the cost of a turn stays a small part of the slice, short enough that a handful of slices fit in
 * the 50 ms a health check may wait.
 */
export const SLICE_MS = 8;

/**
 * What a request may use before it stops going ahead of the others: a small query's planning, reads and answer fit
 * (a few slices), and a stream of new requests can hold an older one back by no more than that each. Least-served-first
 * alone starves under steady load: every newcomer has used less than a request that has run for a while, so while a
 * few clients kept sending short requests, one waited many times their length (bench/RESULTS.md, "Time slicing under
 * steady load").
 */
export const SHORT_MS = 5 * SLICE_MS;

/** Where one request's work queues for its turns, and the thread time it has had. */
export class Lane {
  /** Milliseconds of slices this lane has used. */
  used = 0;
  readonly waiting: (() => void)[] = [];
}

/** For work outside a request (benchmarks, tests, start-up). */
const SHARED_LANE = new Lane();

/** When the running slice began: only the pump starts one, so every caller after it in this turn is due too. */
let sliceStart = performance.now();
/** Time before this is charged to some lane already. */
let chargedUntil = sliceStart;
const waitingLanes = new Set<Lane>();
let pumping = false;

/**
 * `undefined` while the current slice has time left (callers skip the await: no promise, no microtask); otherwise a
 * promise that resolves when this lane's turn comes, with a fresh slice. Work that starts from an I/O callback has
 * no slice of its own and yields at its first check once another slice has run long; that costs one turn.
 */
export function yieldIfDue(lane: Lane = SHARED_LANE): Promise<void> | undefined {
  const now = performance.now();
  if (now - sliceStart < SLICE_MS) return undefined;
  lane.used += now - Math.max(sliceStart, chargedUntil);
  chargedUntil = now;
  return new Promise<void>((resolve) => {
    lane.waiting.push(resolve);
    waitingLanes.add(lane);
    if (!pumping) {
      pumping = true;
      setImmediate(pump);
    }
  });
}

/**
 * Releases the first waiter of the next lane (see `nextLane`). Its continuation runs in the microtasks right after
 * this callback, and an immediate queued from here runs in the next turn, after the poll phase has taken new I/O.
 */
function pump(): void {
  const next = nextLane();
  const resolve = next?.waiting.shift();
  if (next !== undefined) {
    // To the back of the line: lanes past SHORT_MS take turns in the order they asked.
    waitingLanes.delete(next);
    if (next.waiting.length > 0) waitingLanes.add(next);
  }
  sliceStart = performance.now();
  if (waitingLanes.size > 0) setImmediate(pump);
  else pumping = false;
  resolve?.();
}

/** The least-served waiting lane that has used less than SHORT_MS; otherwise the one that has waited longest. */
function nextLane(): Lane | undefined {
  let short: Lane | undefined;
  let first: Lane | undefined;
  for (const lane of waitingLanes) {
    if (lane.used < SHORT_MS) {
      if (short === undefined || lane.used < short.used) short = lane;
    } else first ??= lane;
  }
  return short ?? first;
}
