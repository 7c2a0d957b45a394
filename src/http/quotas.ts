/**
 * The points a client may read per period (QUOTA_POINTS_READ per QUOTA_PERIOD_MS), the same on every front end. A
 * client is a principal, or an address for requests without credentials; one that has read its points gets 429
 * (RateLimitedError) until its period ends, while the others go on. Requests in flight per client are admission's
 * (src/http/admission.ts), subscriptions live queries'.
 */
import { LRUCache } from 'lru-cache';
import { RateLimitedError } from '../model/errors.js';

export interface ReadQuotaLimits {
  /** Points one client's requests may read per period; 0 for no bound. */
  readonly maxPointsRead: number;
  readonly periodMs: number;
}

/** Clients whose reads are remembered: past it the least recent one starts a fresh period. */
const MAX_CLIENTS = 100_000;

export class ReadQuota {
  private readonly reads = new LRUCache<string, { periodStartMs: number; points: number }>({ max: MAX_CLIENTS });

  constructor(
    readonly limits: ReadQuotaLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Throws RateLimitedError when `client` has read its points of the current period. A request is checked before it
   * runs and charged when it ends, so a client may go over by what its requests under way read (each bounded by
   * MAX_REQUEST_POINTS_READ).
   */
  check(client: string): void {
    const { maxPointsRead, periodMs } = this.limits;
    if (maxPointsRead === 0) return;
    const { points, resetSeconds } = this.period(client);
    if (points < maxPointsRead) return;
    throw new RateLimitedError(
      `this client read ${points} points in its current period of ${periodMs / 1000} s, past its QUOTA_POINTS_READ of ${maxPointsRead}`,
      {
        policy: 'points',
        limit: maxPointsRead,
        remaining: 0,
        windowSeconds: periodMs / 1000,
        resetSeconds,
      },
    );
  }

  /** Adds points a request of `client` read to its period. */
  charge(client: string, points: number): void {
    if (this.limits.maxPointsRead === 0 || points === 0) return;
    const period = this.period(client);
    this.reads.set(client, { periodStartMs: period.periodStartMs, points: period.points + points });
  }

  /** The client's current period: a new one starts when the last has passed. */
  private period(client: string): { periodStartMs: number; points: number; resetSeconds: number } {
    const nowMs = this.now();
    const { periodMs } = this.limits;
    const known = this.reads.get(client);
    const current =
      known !== undefined && nowMs - known.periodStartMs < periodMs ? known : { periodStartMs: nowMs, points: 0 };
    return { ...current, resetSeconds: Math.ceil((current.periodStartMs + periodMs - nowMs) / 1000) };
  }
}
