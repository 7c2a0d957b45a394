/**
 * Work done once for everyone who asks for it while it runs (Go's singleflight, with reference counting): each
 * caller waits with its own abort signal and leaves alone when it fires; the work itself is aborted only when its
 * last waiter has left. Nothing is kept once the work settles: a later caller starts it again.
 */
import { setMaxListeners } from 'node:events';

/** One piece of work under way, as the work and the hooks see it. */
export interface Flight<W> {
  /** Aborted when the last waiter has left. */
  readonly signal: AbortSignal;
  /** The waiters still waiting, in the order they came. */
  readonly waiters: ReadonlySet<W>;
}

export interface FlightResult<T> {
  readonly value: T;
  /** False for the caller that started the work, true for those that joined it. */
  readonly joined: boolean;
}

interface State<T, W> extends Flight<W> {
  readonly controller: AbortController;
  readonly waiters: Set<W>;
  promise: Promise<T>;
}

export class SingleFlight<T, W> {
  private readonly flights = new Map<string, State<T, W>>();
  /** Callers that joined work another had started, since this was made. */
  joins = 0;

  /**
   * Runs `work` for `key` unless it is already under way, then waits for it as `waiter`. `join` runs for a caller
   * that joins work under way, before it waits (it may throw to refuse it: the caller then leaves with that error).
   * A caller whose `signal` aborts rejects at once with the signal's reason.
   */
  async do(
    key: string,
    waiter: W,
    signal: AbortSignal | undefined,
    work: (flight: Flight<W>) => Promise<T>,
    join?: (flight: Flight<W>, waiter: W) => void,
  ): Promise<FlightResult<T>> {
    signal?.throwIfAborted();
    let state = this.flights.get(key);
    const joined = state !== undefined;
    if (state === undefined) {
      const controller = new AbortController();
      // The work's scans all listen to it, as they listen to a request's.
      setMaxListeners(0, controller.signal);
      const started: State<T, W> = { controller, signal: controller.signal, waiters: new Set(), promise: undefined! };
      state = started;
      this.flights.set(key, started);
      started.promise = (async () => {
        try {
          return await work(started);
        } finally {
          if (this.flights.get(key) === started) this.flights.delete(key);
        }
      })();
      // Every waiter may have left before it settles; its failure is then nobody's to hear.
      started.promise.catch(() => undefined);
    }
    const flight = state;
    if (joined) {
      join?.(flight, waiter);
      this.joins++;
    }
    flight.waiters.add(waiter);
    return await new Promise<FlightResult<T>>((resolve, reject) => {
      const leave = () => {
        flight.waiters.delete(waiter);
        if (flight.waiters.size === 0) {
          // Nobody waits: stop the work, and let the next caller start afresh rather than join what is stopping.
          if (this.flights.get(key) === flight) this.flights.delete(key);
          flight.controller.abort(signal!.reason);
        }
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', leave, { once: true });
      flight.promise.then(
        (value) => {
          signal?.removeEventListener('abort', leave);
          flight.waiters.delete(waiter);
          resolve({ value, joined });
        },
        (error: unknown) => {
          signal?.removeEventListener('abort', leave);
          flight.waiters.delete(waiter);
          reject(error);
        },
      );
    });
  }

  /** Whether work for `key` is under way (a caller now would join it). */
  has(key: string): boolean {
    return this.flights.has(key);
  }

  /** Pieces of work under way. */
  get size(): number {
    return this.flights.size;
  }

  /** Callers waiting, over all the work under way. */
  get waiting(): number {
    let n = 0;
    for (const flight of this.flights.values()) n += flight.waiters.size;
    return n;
  }
}
