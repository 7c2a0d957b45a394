/**
 * Cooperative time slicing for the one thread every request shares. Long work (the engine's merge, planning over many
 * series, writing a large answer) calls `yieldIfDue(lane)` between units of work; once the running slice has used
 * SLICE_MS, the caller queues in its lane (one per request) and one slice runs per event-loop turn, so I/O (a health
 * check, a new request) never waits behind more than about one slice. The next slice goes to the waiting lane that
 * has used the least time so far: a small query finishes in a few slices however many heavy requests are running,
 * and heavy requests share what is left, each the same, whatever number of queries it runs.
 */

/**
 * Long enough that the cost of a turn (tens of microseconds when idle) stays under 1%, short enough that a handful
 * of slices fit in the 50 ms a health check may wait.
 */
export const SLICE_MS = 8;

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
 * Releases the first waiter of the lane that has used the least time. Its continuation runs in the microtasks right
 * after this callback, and an immediate queued from here runs in the next turn, after the poll phase has taken new I/O.
 */
function pump(): void {
  let next: Lane | undefined;
  for (const lane of waitingLanes) if (next === undefined || lane.used < next.used) next = lane;
  const resolve = next?.waiting.shift();
  if (next !== undefined && next.waiting.length === 0) waitingLanes.delete(next);
  sliceStart = performance.now();
  if (waitingLanes.size > 0) setImmediate(pump);
  else pumping = false;
  resolve?.();
}
