/**
 * Cooperative time slicing for the one thread every request shares. Long work (the engine's merge, planning over many
 * series, rendering a large answer) calls `yieldIfDue()` between units of work; once the running slice has used
 * SLICE_MS, the caller queues, and the queue releases one slice per event-loop turn, so I/O (a health check, a small
 * query, a new connection) never waits behind more than about one slice, however many heavy requests run.
 */

/**
 * Long enough that the cost of a turn (tens of microseconds when idle) stays under 1%, short enough that a handful
 * of slices fit in the 50 ms a health check may wait.
 */
export const SLICE_MS = 8;

let sliceStart = performance.now();
const waiting: (() => void)[] = [];
let pumping = false;

/**
 * `undefined` while the current slice has time left (callers skip the await: no promise, no microtask); otherwise a
 * promise that resolves when this caller's turn comes, with a fresh slice. Work that starts from an I/O callback has
 * no slice of its own and yields at its first check once another slice has run long; that costs one turn.
 */
export function yieldIfDue(): Promise<void> | undefined {
  if (performance.now() - sliceStart < SLICE_MS) return undefined;
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    if (!pumping) {
      pumping = true;
      setImmediate(pump);
    }
  });
}

/**
 * Releases the longest-waiting caller. Its continuation runs in the microtasks right after this callback, and an
 * immediate queued from here runs in the next turn, after the poll phase has taken new I/O.
 */
function pump(): void {
  const next = waiting.shift();
  sliceStart = performance.now();
  if (waiting.length > 0) setImmediate(pump);
  else pumping = false;
  next?.();
}
