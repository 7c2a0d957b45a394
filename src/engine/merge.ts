/**
 * K-way merge of slice streams that are each in time order into one stream in time order. It emits runs of the
 * input slices as zero-copy sub-slices, so partitions that do not overlap in time pass through whole; only
 * interleaving partitions (two data types of a series, KairosDB's unaligned negative-time rows) get cut finely.
 */
import type { Slice } from '../store/store.js';

/** Equal timestamps come out in stream order, so the answer never depends on scheduling. */
export async function* mergeSlices(streams: readonly AsyncIterable<Slice>[], order: 'asc' | 'desc' = 'asc'): AsyncGenerator<Slice> {
  const before = order === 'asc' ? (a: number, b: number) => a < b : (a: number, b: number) => a > b;
  const cursors = streams.map((stream, index) => new Cursor(stream[Symbol.asyncIterator](), index));
  const heap = new CursorHeap(before);
  try {
    await Promise.all(cursors.map((c) => c.advance()));
    for (const cursor of cursors) if (cursor.slice) heap.push(cursor);
    while (heap.size > 0) {
      const cursor = heap.pop();
      const slice = cursor.slice!;
      const next = heap.peek();
      let end = slice.timestamps.length;
      if (next !== undefined) {
        const bound = next.timestamp();
        const inclusive = cursor.index < next.index;
        end = runEnd(slice.timestamps, cursor.position, bound, inclusive, before);
      }
      yield end - cursor.position === slice.timestamps.length ? slice : subSlice(slice, cursor.position, end);
      cursor.position = end;
      if (end === slice.timestamps.length) await cursor.advance();
      if (cursor.slice) heap.push(cursor);
    }
  } finally {
    await Promise.all(cursors.map((c) => c.close()));
  }
}

/** Points [start, end) of a slice, sharing its buffers. */
export function subSlice(slice: Slice, start: number, end: number): Slice {
  const timestamps = slice.timestamps.subarray(start, end);
  switch (slice.kind) {
    case 'string':
      return { key: slice.key, kind: 'string', timestamps, values: slice.values.slice(start, end) };
    case 'complex':
      return { key: slice.key, kind: 'complex', timestamps, values: slice.values.subarray(start, end), imaginary: slice.imaginary.subarray(start, end) };
    default: {
      const sub = { key: slice.key, kind: slice.kind, timestamps, values: slice.values.subarray(start, end) };
      return slice.exact === undefined ? sub : { ...sub, exact: slice.exact.subarray(start, end) };
    }
  }
}

/** First index at or after `from` whose timestamp no longer comes before `bound` (ties go to the earlier stream). */
function runEnd(ts: Float64Array, from: number, bound: number, inclusive: boolean, before: (a: number, b: number) => boolean): number {
  const within = (t: number) => before(t, bound) || (inclusive && t === bound);
  if (!within(ts[ts.length - 1]!)) {
    // Binary search for the first timestamp past the bound; the run holds at least the point at `from`.
    let lo = from + 1;
    let hi = ts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (within(ts[mid]!)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  return ts.length;
}

class Cursor {
  slice: Slice | undefined;
  position = 0;
  private done = false;

  constructor(
    private readonly iterator: AsyncIterator<Slice>,
    readonly index: number,
  ) {}

  timestamp(): number {
    return this.slice!.timestamps[this.position]!;
  }

  /** Moves to the next non-empty slice, or clears `slice` at the end. */
  async advance(): Promise<void> {
    this.slice = undefined;
    this.position = 0;
    while (!this.done) {
      const next = await this.iterator.next();
      if (next.done) {
        this.done = true;
        return;
      }
      if (next.value.timestamps.length > 0) {
        this.slice = next.value;
        return;
      }
    }
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

  constructor(private readonly before: (a: number, b: number) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): Cursor | undefined {
    return this.items[0];
  }

  push(cursor: Cursor): void {
    const items = this.items;
    let i = items.push(cursor) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(items[i]!, items[parent]!)) break;
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
        if (l < items.length && this.less(items[l]!, items[m]!)) m = l;
        if (r < items.length && this.less(items[r]!, items[m]!)) m = r;
        if (m === i) break;
        [items[i], items[m]] = [items[m]!, items[i]!];
        i = m;
      }
    }
    return top;
  }

  private less(a: Cursor, b: Cursor): boolean {
    const ta = a.timestamp();
    const tb = b.timestamp();
    return this.before(ta, tb) || (ta === tb && a.index < b.index);
  }
}
