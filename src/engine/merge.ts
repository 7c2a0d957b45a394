/**
 * K-way merge of partition scans into one stream in KairosDB's order (time, then value, then series rank), handed
 * out as runs of the input slices: no copies and no object per point, so partitions that do not overlap in time pass
 * through whole. Each scan is opened only when the merge reaches its time bounds, so a long query over many row
 * periods holds one page per series, not one per partition. The merge yields the thread between runs (lib/time-slice.ts).
 */
import type { Slice } from '../model/series.js';
import { yieldIfDue, type Lane } from '../lib/time-slice.js';
import { compareInStream, tieAt, type Order } from './points.js';

export interface MergeInput {
  /** Starts the scan, in stream order. Called at most once, when the merge reaches the input's bounds. */
  readonly open: () => AsyncIterable<Slice>;
  /** No point of the input lies before `fromMs` or after `toMs` (a partition: [rowTime, rowTime + width)). */
  readonly fromMs: number;
  readonly toMs: number;
  /** Canonical position of the input's series: the last tie-breaker. */
  readonly rank: number;
}

/** Receives each run [from, to) in stream order; `false` stops the merge, a promise is awaited before going on. */
export type RunHandler = (slice: Slice, from: number, to: number, rank: number) => boolean | void | Promise<void>;

/** Sees every slice as a scan yields it; returns the slice to merge (possibly shortened), or undefined to stop. */
type SliceGate = (slice: Slice) => Slice | undefined;

export interface MergeOptions {
  readonly gate?: SliceGate;
  /** First reads in flight at once when the merge reaches several inputs together (default 8). */
  readonly concurrency?: number;
  /** Whose turns the merge takes when it yields the thread. */
  readonly lane?: Lane;
}

/** Resolves true when every input was merged to its end, false when the handler or the gate stopped it. */
export async function mergeRuns(
  inputs: readonly MergeInput[],
  order: Order,
  onRun: RunHandler,
  options: MergeOptions = {},
): Promise<boolean> {
  const { gate, concurrency = 8, lane } = options;
  const asc = order === 'asc';
  const pending = [...inputs].sort(
    asc ? (a, b) => a.fromMs - b.fromMs || a.rank - b.rank : (a, b) => b.toMs - a.toMs || a.rank - b.rank,
  );
  const opened: Cursor[] = [];
  const heap = new CursorHeap(order);
  let next = 0;
  let halted = false;
  const guard: SliceGate | undefined =
    gate &&
    ((slice) => {
      const admitted = gate(slice);
      if (admitted === undefined) halted = true;
      return admitted;
    });
  /**
   * Opens the inputs [next, end) with at most `concurrency` first reads in flight: a window, not rounds, so a slow
   * first page holds up only its own slot (a thousand one-point partitions on Cassandra were 125 round trips in
   * turn). Cursors join the heap in input order, whatever finished first; the gate's refusal stops the opening.
   */
  const openUpTo = async (end: number) => {
    const batch = pending
      .slice(next, end)
      .map((input) => new Cursor(input.open()[Symbol.asyncIterator](), input.rank, guard));
    next = end;
    opened.push(...batch);
    const ready: boolean[] = new Array<boolean>(batch.length).fill(false);
    let taken = 0;
    const slot = async () => {
      while (taken < batch.length && !halted) {
        const i = taken++;
        ready[i] = await batch[i]!.advance();
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, batch.length) }, slot));
    batch.forEach((cursor, i) => {
      if (ready[i]) heap.push(cursor);
    });
  };
  // An unopened input can hold no point before its bound, so the merge may run up to (not onto) that bound.
  const reached = (input: MergeInput, ts: number) => (asc ? input.fromMs <= ts : input.toMs >= ts);
  try {
    for (;;) {
      let head = heap.peek();
      while (next < pending.length && (head === undefined || reached(pending[next]!, head.timestamp()))) {
        // Everything the current head has reached, or when nothing is open, every input sharing the first bound.
        const bound = head !== undefined ? head.timestamp() : asc ? pending[next]!.fromMs : pending[next]!.toMs;
        let end = next;
        while (end < pending.length && reached(pending[end]!, bound)) end++;
        await openUpTo(end);
        if (halted) return false;
        head = heap.peek();
      }
      if (head === undefined) return true;
      // Between runs, never inside one: the heap is consistent here, and a run is at most one page of points.
      const turn = yieldIfDue(lane);
      if (turn !== undefined) await turn;
      const cursor = heap.pop();
      const slice = cursor.slice!;
      const ts = slice.timestamps;
      let end = ts.length;
      const other = heap.peek();
      if (other !== undefined) {
        const bound = other.timestamp();
        end = firstNotBefore(ts, cursor.position + 1, end, bound, asc);
        if (
          end < ts.length &&
          ts[end] === bound &&
          compareInStream(
            order,
            bound,
            tieAt(slice, end),
            cursor.rank,
            bound,
            tieAt(other.slice!, other.position),
            other.rank,
          ) < 0
        )
          end++;
      }
      if (next < pending.length) {
        const upcoming = pending[next]!;
        end = firstNotBefore(ts, cursor.position + 1, end, asc ? upcoming.fromMs : upcoming.toMs, asc);
      }
      const handled = onRun(slice, cursor.position, end, cursor.rank);
      if (handled === false) return false;
      if (handled !== undefined && handled !== true) await handled;
      cursor.position = end;
      if (end < ts.length || (await cursor.advance())) heap.push(cursor);
      if (halted) return false;
    }
  } finally {
    await Promise.all(opened.map((c) => c.close()));
  }
}

/** First index in [from, to) whose timestamp is not before `bound` in stream order (timestamps are monotone). */
function firstNotBefore(ts: Float64Array, from: number, to: number, bound: number, asc: boolean): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (asc ? ts[mid]! < bound : ts[mid]! > bound) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

class Cursor {
  slice: Slice | undefined;
  position = 0;
  private done = false;

  constructor(
    private readonly iterator: AsyncIterator<Slice>,
    readonly rank: number,
    private readonly gate: SliceGate | undefined,
  ) {}

  timestamp(): number {
    return this.slice!.timestamps[this.position]!;
  }

  /** Moves to the next non-empty slice; false at the end of the scan or when the gate refused a slice. */
  async advance(): Promise<boolean> {
    this.slice = undefined;
    this.position = 0;
    while (!this.done) {
      const next = await this.iterator.next();
      if (next.done) {
        this.done = true;
        return false;
      }
      const slice = this.gate ? this.gate(next.value) : next.value;
      if (slice === undefined) return false;
      if (slice.timestamps.length > 0) {
        this.slice = slice;
        return true;
      }
    }
    return false;
  }

  async close(): Promise<void> {
    if (!this.done) {
      this.done = true;
      await this.iterator.return?.();
    }
  }
}

class CursorHeap {
  private readonly items: Cursor[] = [];

  constructor(private readonly order: Order) {}

  peek(): Cursor | undefined {
    return this.items[0];
  }

  push(cursor: Cursor): void {
    const items = this.items;
    let i = items.push(cursor) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): Cursor {
    const items = this.items;
    const top = items[0]!;
    const last = items.pop()!;
    if (items.length > 0) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && this.before(items[l]!, items[m]!)) m = l;
        if (r < items.length && this.before(items[r]!, items[m]!)) m = r;
        if (m === i) break;
        [items[i], items[m]] = [items[m]!, items[i]!];
        i = m;
      }
    }
    return top;
  }

  private before(a: Cursor, b: Cursor): boolean {
    return (
      compareInStream(
        this.order,
        a.timestamp(),
        tieAt(a.slice!, a.position),
        a.rank,
        b.timestamp(),
        tieAt(b.slice!, b.position),
        b.rank,
      ) < 0
    );
  }
}
