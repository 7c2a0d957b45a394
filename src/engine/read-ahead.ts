/**
 * Read-ahead over partition scans consumed one after another: when the engine opens scan k, scans k+1 … k+depth
 * have already asked the store for their first page, so a store that waits on the network (Cassandra) works on the
 * next partitions while the engine aggregates this one. Memory: at most `depth` first pages, per query.
 */
import type { Slice } from '../sources/series.js';

export class ReadAhead {
  private readonly early = new Map<number, AsyncIterator<Slice>>();
  /** Scans below this index were opened, early or by the engine. */
  private next = 0;

  /** `opens[k]` starts scan k; the engine opens them in order, each at most once. */
  constructor(
    private readonly opens: readonly (() => AsyncIterable<Slice>)[],
    private readonly depth: number,
  ) {}

  /** Scan k, started now or earlier; scans up to k + depth are started too. */
  open(k: number): AsyncIterable<Slice> {
    const own = this.early.get(k);
    this.early.delete(k);
    if (this.next <= k) this.next = k + 1;
    for (; this.next <= Math.min(k + this.depth, this.opens.length - 1); this.next++) this.early.set(this.next, started(this.opens[this.next]!()));
    const iterator = own ?? this.opens[k]!()[Symbol.asyncIterator]();
    return { [Symbol.asyncIterator]: () => iterator };
  }

  /** Ends the scans started early that the engine never reached (a limit, a budget, an abort stopped it). */
  async close(): Promise<void> {
    const left = [...this.early.values()];
    this.early.clear();
    await Promise.all(left.map((iterator) => iterator.return?.().catch(() => undefined)));
  }
}

/** An iterator whose first page is already requested: its first next() hands over that request. */
function started(scan: AsyncIterable<Slice>): AsyncIterator<Slice> {
  const iterator = scan[Symbol.asyncIterator]();
  let first: Promise<IteratorResult<Slice>> | undefined = iterator.next();
  // A failure surfaces when the engine reaches the scan; until then it must not count as unhandled.
  first.catch(() => undefined);
  return {
    next: () => {
      if (first === undefined) return iterator.next();
      const pending = first;
      first = undefined;
      return pending;
    },
    return: async (value?: unknown) => {
      // An async generator queues return() behind a pending next(); wait for it so the store's scan really ends.
      if (first !== undefined) await first.catch(() => undefined);
      first = undefined;
      return iterator.return ? iterator.return(value) : { done: true, value: undefined };
    },
  };
}
