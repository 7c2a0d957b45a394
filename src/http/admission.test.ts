/**
 * Admission control on its own, on a clock the test moves: turns in arrival order, refusals with their reasons,
 * messages and Retry-After, the wait estimate, queue exits, and what /metrics shows.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { OverloadedError, QueryTimeoutError } from '../model/errors.js';
import { Admission, type Release } from './admission.js';

function setUp(maxRunning: number, maxQueued: number) {
  let now = 1000;
  const registry = new Registry();
  const admission = new Admission({ maxRunning, maxQueued }, registry, () => now);
  return {
    admission,
    registry,
    advance: (ms: number) => (now += ms),
    at: () => now,
  };
}

/** The settled state of a promise, without waiting for it. */
async function state<T>(promise: Promise<T>): Promise<'pending' | 'fulfilled' | 'rejected'> {
  const marker = Symbol('pending');
  try {
    return (await Promise.race([promise, Promise.resolve(marker)])) === marker ? 'pending' : 'fulfilled';
  } catch {
    return 'rejected';
  }
}

async function refusal(promise: Promise<unknown>): Promise<OverloadedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OverloadedError);
  return error as OverloadedError;
}

const open = () => new AbortController().signal;
const FAR = Number.MAX_SAFE_INTEGER;

describe('Admission', () => {
  it('refuses limits it cannot keep, naming the value', () => {
    expect(() => new Admission({ maxRunning: 0, maxQueued: 1 }, new Registry())).toThrow(
      'maxRunning must be a positive integer: 0',
    );
    expect(() => new Admission({ maxRunning: 1, maxQueued: -1 }, new Registry())).toThrow(
      'maxQueued must be a non-negative integer: -1',
    );
  });

  it('gives turns at once up to maxRunning, then in arrival order as turns come back', async () => {
    const { admission } = setUp(2, 3);
    const first = await admission.admit(open(), FAR);
    const second = await admission.admit(open(), FAR);
    const queued = [admission.admit(open(), FAR), admission.admit(open(), FAR), admission.admit(open(), FAR)];
    expect([admission.runningCount, admission.queuedCount]).toEqual([2, 3]);
    expect(await Promise.all(queued.map(state))).toEqual(['pending', 'pending', 'pending']);
    first();
    expect(await Promise.all(queued.map(state))).toEqual(['fulfilled', 'pending', 'pending']);
    // A turn given back twice counts once.
    first();
    expect(await Promise.all(queued.map(state))).toEqual(['fulfilled', 'pending', 'pending']);
    second();
    expect(await Promise.all(queued.map(state))).toEqual(['fulfilled', 'fulfilled', 'pending']);
    expect([admission.runningCount, admission.queuedCount]).toEqual([2, 1]);
  });

  it('refuses at once when the queue is full, with Retry-After from the mean hold time', async () => {
    const { admission, advance } = setUp(1, 1);
    const first = await admission.admit(open(), FAR);
    advance(4000);
    first();
    const running = await admission.admit(open(), FAR);
    void admission.admit(open(), FAR);
    const error = await refusal(admission.admit(open(), FAR));
    // One request waits and one more would: two turns of 4 s, one at a time.
    expect(error.message).toBe(
      'the server is overloaded: 1 of 1 requests running and 1 of 1 waiting (MAX_CONCURRENT_REQUESTS, MAX_QUEUED_REQUESTS); retry in 8 s',
    );
    expect([error.code, error.status, error.retryAfterSeconds, error.headers]).toEqual([
      'OVERLOADED',
      503,
      8,
      { 'retry-after': '8' },
    ]);
    running();
  });

  it('with no queue, refuses every request that finds no free turn; Retry-After is at least 1 s', async () => {
    const { admission } = setUp(1, 0);
    await admission.admit(open(), FAR);
    const error = await refusal(admission.admit(open(), FAR));
    expect(error.message).toBe(
      'the server is overloaded: 1 of 1 requests running and 0 of 0 waiting (MAX_CONCURRENT_REQUESTS, MAX_QUEUED_REQUESTS); retry in 1 s',
    );
  });

  it('refuses a request whose expected wait would pass its deadline, and queues one whose would not', async () => {
    const { admission, advance, at } = setUp(2, 10);
    // Requests hold their turn 3 s: two of them free a turn every 1.5 s.
    for (let i = 0; i < 2; i++) {
      const turns = [await admission.admit(open(), FAR), await admission.admit(open(), FAR)];
      advance(3000);
      for (const release of turns) release();
    }
    const running = [await admission.admit(open(), FAR), await admission.admit(open(), FAR)];
    // First in the queue: about 1.5 s.
    const fits = admission.admit(open(), at() + 1500);
    expect(await state(fits)).toBe('pending');
    // Second: about 3 s, with 2999 ms left.
    const error = await refusal(admission.admit(open(), at() + 2999));
    expect(error.message).toBe(
      "the server is overloaded: the wait for a turn, about 3000 ms, would pass the request's time limit (2999 ms left of QUERY_TIMEOUT_MS); retry in 3 s",
    );
    for (const release of running) release();
    expect(await state(fits)).toBe('fulfilled');
  });

  it('the mean hold time follows the latest requests', async () => {
    const { admission, advance, at } = setUp(1, 10);
    const hold = async (ms: number) => {
      const release = await admission.admit(open(), FAR);
      advance(ms);
      release();
    };
    await hold(10_000);
    // 10 s, then 20 requests of 100 ms: 10,000 × 0.8^20 + 100 × (1 − 0.8^20) ≈ 214.1 ms.
    for (let i = 0; i < 20; i++) await hold(100);
    const running = await admission.admit(open(), FAR);
    expect(await state(admission.admit(open(), at() + 215))).toBe('pending');
    expect((await refusal(admission.admit(open(), at() + 428))).message).toContain('about 429 ms');
    running();
  });

  it('takes a request out of the queue when its client leaves, with the client’s reason', async () => {
    const { admission, registry } = setUp(1, 2);
    const running = await admission.admit(open(), FAR);
    const leaving = new AbortController();
    const left = admission.admit(leaving.signal, FAR);
    const staying = admission.admit(open(), FAR);
    const gone = new Error('the client closed the connection');
    leaving.abort(gone);
    await expect(left).rejects.toBe(gone);
    expect(admission.queuedCount).toBe(1);
    running();
    expect(await state(staying)).toBe('fulfilled');
    expect(await registry.getSingleMetricAsString('kairograph_admission_abandoned_total')).toContain(
      'kairograph_admission_abandoned_total 1',
    );
  });

  it('turns a time limit that passes in the queue into OVERLOADED, and refuses a request already aborted', async () => {
    const { admission } = setUp(1, 2);
    const running = await admission.admit(open(), FAR);
    const limit = new AbortController();
    const waiting = admission.admit(limit.signal, FAR);
    limit.abort(new QueryTimeoutError(250));
    expect((await refusal(waiting)).message).toBe(
      'the server is overloaded: the request waited its whole time limit of 250 ms for a turn (QUERY_TIMEOUT_MS); retry in 1 s',
    );
    expect(admission.queuedCount).toBe(0);
    const reason = new Error('gone before it asked');
    await expect(admission.admit(AbortSignal.abort(reason), FAR)).rejects.toBe(reason);
    running();
    expect(admission.runningCount).toBe(0);
  });

  it('shows running and queued requests, refusals by reason and waits in the registry', async () => {
    const { admission, registry, advance } = setUp(1, 1);
    const running = await admission.admit(open(), FAR);
    const queued = admission.admit(open(), FAR);
    await refusal(admission.admit(open(), FAR));
    const text = await registry.metrics();
    expect(text).toContain('kairograph_admission_running 1\n');
    expect(text).toContain('kairograph_admission_queued 1\n');
    expect(text).toContain('kairograph_admission_rejected_total{reason="queue_full"} 1\n');
    expect(text).toContain('kairograph_admission_rejected_total{reason="wait"} 0\n');
    expect(text).toContain('kairograph_admission_rejected_total{reason="timeout"} 0\n');
    advance(2000);
    running();
    const next: Release = await queued;
    next();
    const after = await registry.metrics();
    expect(after).toContain('kairograph_admission_running 0\n');
    expect(after).toContain('kairograph_admission_queued 0\n');
    // The first found a free turn (0 s), the second waited 2 s.
    expect(after).toContain('kairograph_admission_wait_seconds_bucket{le="0.001"} 1\n');
    expect(after).toContain('kairograph_admission_wait_seconds_bucket{le="2.5"} 2\n');
    expect(after).toContain('kairograph_admission_wait_seconds_sum 2\n');
  });
});
