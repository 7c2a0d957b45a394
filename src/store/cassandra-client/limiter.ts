// A counting semaphore over requests to Cassandra. Permits are held for one request (a page, a batch), never for
// a whole scan: the engine's k-way merge keeps many scans suspended at once, and a permit held across a
// suspended scan would deadlock it.

export class Limiter {
  private available: number;
  private readonly waiting: { grant: () => void; signal: AbortSignal | undefined; onAbort: () => void }[] = [];

  constructor(readonly size: number) {
    this.available = size;
  }

  /** Resolves with a permit; rejects with the signal's reason if it aborts first (the permit is not taken then). */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.available > 0) {
      this.available--;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        signal,
        grant: resolve,
        onAbort: () => {
          const i = this.waiting.indexOf(entry);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(signal!.reason);
        },
      };
      signal?.addEventListener('abort', entry.onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  release(): void {
    const next = this.waiting.shift();
    if (next === undefined) {
      this.available++;
      return;
    }
    next.signal?.removeEventListener('abort', next.onAbort);
    next.grant();
  }

  /** Requests waiting for a permit. */
  get queued(): number {
    return this.waiting.length;
  }
}
