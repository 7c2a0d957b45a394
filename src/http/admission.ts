/**
 * Admission control: at most MAX_CONCURRENT_REQUESTS requests run queries at once, the next MAX_QUEUED_REQUESTS wait
 * for a turn in arrival order, and any other is refused at once with OVERLOADED, as is one whose wait would pass its
 * time limit. A request takes its turn at its first query and gives it back when its answer is done. One client (a
 * principal, or an address for requests without credentials) holds at most QUOTA_RUNNING turns, so a client's heavy
 * requests leave a turn for the others; its further requests wait, and a freed turn goes to the longest-waiting
 * request whose client is under that bound.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { OverloadedError, QueryTimeoutError, RateLimitedError } from '../model/errors.js';

export interface AdmissionLimits {
  /** Requests that may run queries at once (MAX_CONCURRENT_REQUESTS). */
  readonly maxRunning: number;
  /** Requests that may wait for a turn (MAX_QUEUED_REQUESTS); with 0 a request that finds no free turn is refused. */
  readonly maxQueued: number;
  /** Turns one client may hold at once (QUOTA_RUNNING); at most maxRunning, which is what it defaults to. */
  readonly maxRunningPerClient?: number;
  /** Requests one client may have running or waiting (QUOTA_REQUESTS); past it RATE_LIMITED; 0 or absent for no bound. */
  readonly maxPerClient?: number;
}

/** Gives a turn back; calling it again does nothing. */
export type Release = () => void;

/** Why a request was refused, as /metrics counts it. */
export type RefusalReason = 'queue_full' | 'wait' | 'timeout';
const REFUSAL_REASONS: readonly RefusalReason[] = ['queue_full', 'wait', 'timeout'];

interface Waiter {
  /** performance.now() when it joined the queue. */
  readonly since: number;
  readonly client: string;
  readonly signal: AbortSignal;
  readonly resolve: (release: Release) => void;
  readonly onAbort: () => void;
}

/**
 * Weight of the latest hold time in the running mean the wait is estimated from: the last ten or so requests count,
 * so the estimate follows a change of load within seconds without swinging with every request.
 */
const HOLD_WEIGHT = 0.2;

export class Admission {
  private running = 0;
  private readonly queue: Waiter[] = [];
  /** Turns held, by client; a client holding none has no entry. */
  private readonly held = new Map<string, number>();
  /** Requests running or waiting, by client; a client with none has no entry. */
  private readonly perClient = new Map<string, number>();
  private readonly maxPerClient: number;
  /** Mean time a request holds its turn; undefined until one has given its turn back (no estimate, no wait refusal). */
  private meanHoldMs: number | undefined;
  private readonly refused: Counter<'reason'>;
  private readonly abandoned: Counter;
  private readonly waited: Histogram;

  /** `now` is the clock of deadlines and hold times (performance.now(); tests pass their own). */
  constructor(
    private readonly limits: AdmissionLimits,
    registry: Registry,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!Number.isSafeInteger(limits.maxRunning) || limits.maxRunning < 1)
      throw new RangeError(`maxRunning must be a positive integer: ${limits.maxRunning}`);
    if (!Number.isSafeInteger(limits.maxQueued) || limits.maxQueued < 0)
      throw new RangeError(`maxQueued must be a non-negative integer: ${limits.maxQueued}`);
    this.maxPerClient = Math.min(limits.maxRunning, limits.maxRunningPerClient ?? limits.maxRunning);
    if (!Number.isSafeInteger(this.maxPerClient) || this.maxPerClient < 1)
      throw new RangeError(`maxRunningPerClient must be a positive integer: ${limits.maxRunningPerClient}`);
    const state = () => ({ running: this.running, queued: this.queue.length });
    new Gauge({
      name: 'kairograph_admission_running',
      help: 'Requests running queries now (at most MAX_CONCURRENT_REQUESTS)',
      registers: [registry],
      collect() {
        this.set(state().running);
      },
    });
    new Gauge({
      name: 'kairograph_admission_queued',
      help: 'Requests waiting for a turn to run their queries (at most MAX_QUEUED_REQUESTS)',
      registers: [registry],
      collect() {
        this.set(state().queued);
      },
    });
    this.refused = new Counter({
      name: 'kairograph_admission_rejected_total',
      help: 'Requests refused with OVERLOADED: queue_full, wait (the expected wait would pass QUERY_TIMEOUT_MS), timeout (it did)',
      labelNames: ['reason'],
      registers: [registry],
    });
    // Every reason from the start, at 0: a rate over a series that appears only with the first refusal misses it.
    for (const reason of REFUSAL_REASONS) this.refused.inc({ reason }, 0);
    this.abandoned = new Counter({
      name: 'kairograph_admission_abandoned_total',
      help: 'Queued requests whose client left before their turn',
      registers: [registry],
    });
    this.waited = new Histogram({
      name: 'kairograph_admission_wait_seconds',
      help: 'Time requests waited for their turn (0 for those that found one free)',
      buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
  }

  get runningCount(): number {
    return this.running;
  }

  get queuedCount(): number {
    return this.queue.length;
  }

  /**
   * The request's turn: at once while fewer than maxRunning requests run, otherwise after the requests queued before
   * it. Rejects with an OverloadedError when the queue is full, when the expected wait would pass `deadline` (a
   * performance.now() time: the request's time limit), or when the signal aborts with a QueryTimeoutError in the
   * queue; with the signal's reason when it aborts for another (the client left).
   */
  admit(signal: AbortSignal, deadline: number, client = ''): Promise<Release> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const quota = this.limits.maxPerClient ?? 0;
    const inFlight = this.perClient.get(client) ?? 0;
    if (quota > 0 && inFlight >= quota) {
      return Promise.reject(
        new RateLimitedError(
          `this client already has ${inFlight} requests running or waiting for a turn, its QUOTA_REQUESTS`,
          { policy: 'requests', limit: quota, remaining: 0, resetSeconds: 1 },
        ),
      );
    }
    const now = this.now();
    if (this.running < this.limits.maxRunning && this.mayStart(client)) {
      this.count(client, 1);
      return Promise.resolve(this.start(now, client));
    }
    if (this.queue.length >= this.limits.maxQueued) {
      return Promise.reject(
        this.refuse(
          'queue_full',
          `${this.running} of ${this.limits.maxRunning} requests running and ${this.queue.length} of ${this.limits.maxQueued} waiting (MAX_CONCURRENT_REQUESTS, MAX_QUEUED_REQUESTS)`,
        ),
      );
    }
    const expectedMs = this.expectedWaitMs(this.queue.length);
    const leftMs = deadline - now;
    if (expectedMs > leftMs) {
      return Promise.reject(
        this.refuse(
          'wait',
          `the wait for a turn, about ${Math.ceil(expectedMs)} ms, would pass the request's time limit (${Math.max(0, Math.floor(leftMs))} ms left of QUERY_TIMEOUT_MS)`,
        ),
      );
    }
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        since: now,
        client,
        signal,
        resolve,
        onAbort: () => {
          const at = this.queue.indexOf(waiter);
          if (at >= 0) {
            this.queue.splice(at, 1);
            this.count(client, -1);
          }
          const { reason } = signal;
          if (reason instanceof QueryTimeoutError) {
            reject(
              this.refuse(
                'timeout',
                `the request waited its whole time limit of ${reason.timeoutMs} ms for a turn (QUERY_TIMEOUT_MS)`,
              ),
            );
          } else {
            this.abandoned.inc();
            reject(reason);
          }
        },
      };
      this.queue.push(waiter);
      this.count(client, 1);
      signal.addEventListener('abort', waiter.onAbort, { once: true });
    });
  }

  /** Counts a request of `client` in (+1) or out (-1) of its running and waiting requests. */
  private count(client: string, delta: 1 | -1): void {
    const now = (this.perClient.get(client) ?? 0) + delta;
    if (now === 0) this.perClient.delete(client);
    else this.perClient.set(client, now);
  }

  private mayStart(client: string): boolean {
    return (this.held.get(client) ?? 0) < this.maxPerClient;
  }

  /** A turn that starts now, for a request of `client` that waited since `since`. */
  private start(since: number, client: string): Release {
    this.running++;
    this.held.set(client, (this.held.get(client) ?? 0) + 1);
    const started = this.now();
    this.waited.observe((started - since) / 1000);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      const left = this.held.get(client)! - 1;
      if (left === 0) this.held.delete(client);
      else this.held.set(client, left);
      this.count(client, -1);
      const heldMs = this.now() - started;
      this.meanHoldMs =
        this.meanHoldMs === undefined ? heldMs : this.meanHoldMs + HOLD_WEIGHT * (heldMs - this.meanHoldMs);
      this.next();
    };
  }

  /** Hands free turns to the longest-waiting requests whose clients hold fewer than their bound. */
  private next(): void {
    while (this.running < this.limits.maxRunning) {
      const at = this.queue.findIndex((waiter) => this.mayStart(waiter.client));
      if (at < 0) return;
      const [waiter] = this.queue.splice(at, 1);
      waiter!.signal.removeEventListener('abort', waiter!.onAbort);
      waiter!.resolve(this.start(waiter!.since, waiter!.client));
    }
  }

  /**
   * How long a request with `ahead` requests queued before it waits: turns come free at about maxRunning per mean
   * hold time (time slicing shares the thread between the running requests, so each holds its turn about maxRunning
   * times as long as it would alone), and it needs the (ahead + 1)-th.
   */
  private expectedWaitMs(ahead: number): number {
    return this.meanHoldMs === undefined ? 0 : ((ahead + 1) * this.meanHoldMs) / this.limits.maxRunning;
  }

  /** Counts the refusal; its Retry-After is when the requests queued now should have had their turns (at least 1 s). */
  private refuse(reason: RefusalReason, why: string): OverloadedError {
    this.refused.inc({ reason });
    const retryAfterSeconds = Math.max(1, Math.ceil(this.expectedWaitMs(this.queue.length) / 1000));
    return new OverloadedError(why, retryAfterSeconds);
  }
}
