/**
 * What checking credentials may cost: scrypt verifications bounded in concurrency (ScryptGate), and a per-client
 * wait after repeated failures (FailureBackoff).
 */
import { LRUCache } from 'lru-cache';
import { OverloadedError, RateLimitedError } from '../model/errors.js';

/** scrypt verifications at once: libuv's pool has four threads, and the file system and zlib need them too. */
export const SCRYPT_RUNNING = 2;
/** Verifications that may wait for one of those; past it a new one is refused at once (OVERLOADED). */
export const SCRYPT_QUEUED = 64;

/** A bound on scrypt work in flight, so a burst of passwords queues briefly or is refused instead of taking the pool. */
export class ScryptGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly maxRunning: number,
    private readonly maxWaiting: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.maxRunning) {
      if (this.waiting.length >= this.maxWaiting) throw new OverloadedError('too many password checks are waiting', 1);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.running--;
    }
  }
}

/** Failed passwords a client may send before it must wait. */
const FREE_FAILURES = 5;
/** The wait after the first failure past those; it doubles with each further one, up to MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;
/** A client's failures are forgotten this long after its last one. */
const FORGET_AFTER_MS = 15 * 60_000;

/**
 * Per-client backoff for failed password (and scrypt token) checks: a client past FREE_FAILURES waits a doubling
 * time before its next check, answered 429 until then; a success clears its record. Clients are told apart by
 * address, so one guessing passwords slows itself, not the others (behind a proxy they share one address).
 */
export class FailureBackoff {
  private readonly clients = new LRUCache<string, { failures: number; untilMs: number }>({
    max: 10_000,
    ttl: FORGET_AFTER_MS,
  });

  check(client: string): void {
    const record = this.clients.get(client);
    const waitMs = record === undefined ? 0 : record.untilMs - Date.now();
    if (waitMs > 0) {
      throw new RateLimitedError(`too many failed sign-ins from this address (${record!.failures})`, {
        policy: 'credentials',
        limit: FREE_FAILURES,
        remaining: 0,
        resetSeconds: Math.ceil(waitMs / 1000),
      });
    }
  }

  failed(client: string): void {
    const failures = (this.clients.get(client)?.failures ?? 0) + 1;
    const over = failures - FREE_FAILURES;
    const untilMs = over > 0 ? Date.now() + Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (over - 1)) : 0;
    this.clients.set(client, { failures, untilMs });
  }

  succeeded(client: string): void {
    this.clients.delete(client);
  }
}
