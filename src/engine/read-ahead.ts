/**
 * Read-ahead over partition scans consumed one after another (series after series, so that sums are added in one
 * fixed order): when the engine opens scan k, scans k+1 … k+depth are started too, and every started scan keeps
 * reading into a queue of its own while the request's read-ahead budget has room. A store that waits on the network
 * (Cassandra) then has up to depth + 1 partitions' pages in flight while the engine aggregates one of them: a
 * partition is many pages, and a scan that stopped after its first page would leave the store one page at a time.
 *
 * Memory: the slices queued ahead of the engine, for all queries of a request together, stay within the budget (plus
 * one slice per started scan, the one under way when the budget filled). A scan the engine waits for always reads
 * its next slice, budget or not: the budget bounds reading ahead, never reading.
 */
import type { Slice } from '../sources/series.js';

/** The default of CASSANDRA_READ_AHEAD_POINTS: 16 MB of slices of doubles (a timestamp and a value, 8 bytes each). */
export const DEFAULT_READ_AHEAD_POINTS = 1_048_576;

/** Points a request may hold read ahead of its queries, shared by all of them. */
export class ReadAheadBudget {
  private held = 0;
  private readonly paused = new Set<() => void>();

  constructor(readonly maxPoints: number) {}

  /** Points queued ahead now. */
  get points(): number {
    return this.held;
  }

  get hasRoom(): boolean {
    return this.held < this.maxPoints;
  }

  take(points: number): void {
    this.held += points;
  }

  give(points: number): void {
    this.held -= points;
    if (!this.hasRoom || this.paused.size === 0) return;
    const resumes = [...this.paused];
    this.paused.clear();
    for (const resume of resumes) resume();
  }

  /** Calls `resume` once when the budget has room again. */
  whenRoom(resume: () => void): void {
    this.paused.add(resume);
  }

  forget(resume: () => void): void {
    this.paused.delete(resume);
  }
}

export class ReadAhead {
  private readonly early = new Map<number, QueuedScan>();
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

/**
 * A scan that reads ahead of its consumer into a queue while the budget has room. Its source is only ever asked for
 * one slice at a time (an async generator queues calls anyway), and a failure waits in line behind the slices read
 * before it: the engine meets it when it reaches it, never earlier.
 */
class QueuedScan implements AsyncIterator<Slice> {
  private readonly queue: Slice[] = [];
  /** The source's next() under way, if any. */
  private pending: Promise<IteratorResult<Slice>> | undefined;
  private ended = false;
  private failure: { readonly error: unknown } | undefined;
  private closed = false;
  private readonly resume = () => this.readAhead();

  constructor(
    private readonly source: AsyncIterator<Slice>,
    private readonly budget: ReadAheadBudget,
  ) {
    this.readAhead();
  }

  async next(): Promise<IteratorResult<Slice>> {
    for (;;) {
      const slice = this.queue.shift();
      if (slice !== undefined) {
        this.budget.give(slice.timestamps.length);
        this.readAhead();
        return { value: slice, done: false };
      }
      if (this.failure !== undefined) throw this.failure.error;
      if (this.ended || this.closed) return { value: undefined, done: true };
      // The engine waits for this scan: it reads on whatever the budget says.
      await (this.pending ?? this.pull()).catch(() => undefined);
    }
  }

  async return(): Promise<IteratorResult<Slice>> {
    this.closed = true;
    this.budget.forget(this.resume);
    let queued = 0;
    for (const slice of this.queue.splice(0)) queued += slice.timestamps.length;
    this.budget.give(queued);
    // An async generator queues return() behind a pending next(); wait for it so the store's scan really ends.
    if (this.pending !== undefined) await this.pending.catch(() => undefined);
    if (!this.ended && this.failure === undefined) await this.source.return?.().catch(() => undefined);
    this.ended = true;
    return { value: undefined, done: true };
  }

  /** Asks for the next slice unless one is asked for, the scan is over, or the budget is full (then resumes later). */
  private readAhead(): void {
    if (this.pending !== undefined || this.ended || this.closed || this.failure !== undefined) return;
    if (!this.budget.hasRoom) {
      this.budget.whenRoom(this.resume);
      return;
    }
    void this.pull().catch(() => undefined);
  }

  private pull(): Promise<IteratorResult<Slice>> {
    const pending = this.source.next();
    this.pending = pending;
    pending.then(
      (result) => {
        this.pending = undefined;
        if (result.done === true) this.ended = true;
        else if (this.closed) return;
        else {
          this.queue.push(result.value);
          this.budget.take(result.value.timestamps.length);
        }
        this.readAhead();
      },
      (error: unknown) => {
        this.pending = undefined;
        this.failure = { error };
      },
    );
    return pending;
  }
}
