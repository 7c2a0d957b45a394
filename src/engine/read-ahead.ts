/**
 * Read-ahead over partition scans consumed one after another (series after series, so that sums are added in one
 * fixed order): when the engine opens scan k, scans k+1 … k+depth are started too, and every started scan keeps
 * reading into a queue of its own while the request's read-ahead budget has room. A store that waits on the network
 * (Cassandra) then has up to depth + 1 partitions' pages in flight while the engine aggregates one of them: a
 * partition is many pages, and a scan that stopped after its first page would leave the store one page at a time.
 *
 * Memory: the slices queued ahead of the engine, for all queries of a request together, stay within the budget (plus
 * one slice per started scan, and per part of a split scan, the one under way when the budget filled). A scan the
 * engine waits for always reads its next slice, budget or not: the budget bounds reading ahead, never reading.
 */
import { QueuedScan, type ReadAheadBudget } from '../lib/queued-scan.js';
import type { Slice } from '../model/series.js';

/** The default of CASSANDRA_READ_AHEAD_POINTS: 16 MB of slices of doubles (a timestamp and a value, 8 bytes each). */
export const DEFAULT_READ_AHEAD_POINTS = 1_048_576;

export class ReadAhead {
  private readonly early = new Map<number, QueuedScan<Slice>>();
  /** Scans below this index were started, early or by the engine. */
  private next = 0;

  /** `opens[k]` starts scan k; the engine opens them in order, each at most once. */
  constructor(
    private readonly opens: readonly (() => AsyncIterable<Slice>)[],
    private readonly depth: number,
    private readonly budget: ReadAheadBudget,
  ) {}

  /** Scan k, started now or earlier; scans up to k + depth are started too. */
  open(k: number): AsyncIterable<Slice> {
    const own = this.early.get(k) ?? new QueuedScan(this.opens[k]!()[Symbol.asyncIterator](), this.budget);
    this.early.delete(k);
    if (this.next <= k) this.next = k + 1;
    for (; this.next <= Math.min(k + this.depth, this.opens.length - 1); this.next++) {
      this.early.set(this.next, new QueuedScan(this.opens[this.next]!()[Symbol.asyncIterator](), this.budget));
    }
    return { [Symbol.asyncIterator]: () => own };
  }

  /** Ends the scans started early that the engine never reached (a limit, a budget, an abort stopped it). */
  async close(): Promise<void> {
    const left = [...this.early.values()];
    this.early.clear();
    await Promise.all(left.map((scan) => scan.return()));
  }
}
