/**
 * Reading a scan ahead of its reader, within a budget of points shared by a whole request: the engine's read-ahead
 * over partitions (engine/read-ahead.ts) and the parts of a split partition scan (store/cassandra/scan.ts) both queue
 * their slices here, so one request's reads ahead stay within one bound (CASSANDRA_READ_AHEAD_POINTS).
 */

/** What a scan yields: batches of points (slices), counted against the budget by their timestamps. */
interface Points {
  readonly timestamps: { readonly length: number };
}

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

/**
 * A scan that reads ahead of its consumer into a queue while the budget has room. Its source is only ever asked for
 * one slice at a time (an async generator queues calls anyway), and a failure waits in line behind the slices read
 * before it: the reader meets it when it reaches it, never earlier.
 */
export class QueuedScan<T extends Points> implements AsyncIterator<T> {
  private readonly queue: T[] = [];
  /** The source's next() under way, if any. */
  private pending: Promise<IteratorResult<T>> | undefined;
  private ended = false;
  private failure: { readonly error: unknown } | undefined;
  private closed = false;
  private readonly resume = () => this.readAhead();

  /** `started`: its first slice is asked for now, budget or not (one slice over the budget, as a reader would ask). */
  constructor(
    private readonly source: AsyncIterator<T>,
    private readonly budget: ReadAheadBudget,
    started = false,
  ) {
    if (started) void this.pull().catch(() => undefined);
    else this.readAhead();
  }

  async next(): Promise<IteratorResult<T>> {
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

  async return(): Promise<IteratorResult<T>> {
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

  private pull(): Promise<IteratorResult<T>> {
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
