/** The request limiter: permits in arrival order, and a wait that ends with its signal takes no permit. */
import { describe, expect, it } from 'vitest';
import { Limiter } from './limiter.js';

describe('Limiter', () => {
  it('grants up to its size at once and the rest in arrival order as permits come back', async () => {
    const limiter = new Limiter(2);
    const granted: number[] = [];
    const waits = [1, 2, 3, 4].map((n) => limiter.acquire().then(() => granted.push(n)));
    await Promise.resolve();
    expect(granted).toEqual([1, 2]);
    expect(limiter.queued).toBe(2);
    limiter.release();
    await waits[2];
    expect(granted).toEqual([1, 2, 3]);
    limiter.release();
    await waits[3];
    expect(granted).toEqual([1, 2, 3, 4]);
    expect(limiter.queued).toBe(0);
  });

  it('rejects a wait with its signal reason and never hands that wait a permit', async () => {
    const limiter = new Limiter(1);
    await limiter.acquire();
    const controller = new AbortController();
    const aborted = limiter.acquire(controller.signal);
    const next = limiter.acquire();
    controller.abort(new Error('client went away'));
    await expect(aborted).rejects.toThrow('client went away');
    expect(limiter.queued).toBe(1);
    limiter.release();
    await next;
    expect(limiter.queued).toBe(0);
    await expect(limiter.acquire(controller.signal)).rejects.toThrow('client went away');
  });
});
