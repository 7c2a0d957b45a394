// SingleFlight: one run for every caller while it runs, each caller free to leave, the run stopped with the last.
import { describe, expect, it } from 'vitest';
import { SingleFlight } from './single-flight.js';

/** A promise and the functions that settle it. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('SingleFlight', () => {
  it('runs the work once for the callers that ask while it runs, and again for a caller after it settled', async () => {
    const flights = new SingleFlight<number, string>();
    const gate = deferred<number>();
    let runs = 0;
    const work = () => {
      runs++;
      return gate.promise;
    };
    const first = flights.do('k', 'a', undefined, work);
    const second = flights.do('k', 'b', undefined, work);
    const other = flights.do('other', 'c', undefined, async () => 7);
    gate.resolve(42);
    expect(await Promise.all([first, second, other])).toEqual([
      { value: 42, joined: false },
      { value: 42, joined: true },
      { value: 7, joined: false },
    ]);
    expect([runs, flights.joins, flights.size]).toEqual([1, 1, 0]);
    expect(await flights.do('k', 'd', undefined, async () => 43)).toEqual({ value: 43, joined: false });
  });

  it('lets a caller leave when its signal aborts while the others keep waiting, and aborts the work with the last', async () => {
    const flights = new SingleFlight<string, string>();
    const gate = deferred<string>();
    let workSignal: AbortSignal | undefined;
    const work = (flight: { signal: AbortSignal }) => {
      workSignal = flight.signal;
      return gate.promise;
    };
    const leaving = new AbortController();
    const staying = new AbortController();
    const left = flights.do('k', 'leaves', leaving.signal, work);
    const stays = flights.do('k', 'stays', staying.signal, work);
    leaving.abort(new Error('client gone'));
    await expect(left).rejects.toThrow('client gone');
    expect([workSignal!.aborted, flights.waiting]).toEqual([false, 1]);
    gate.resolve('done');
    expect(await stays).toEqual({ value: 'done', joined: true });

    const alone = new AbortController();
    const gate2 = deferred<string>();
    const lone = flights.do('k2', 'alone', alone.signal, (flight) => {
      workSignal = flight.signal;
      return gate2.promise;
    });
    alone.abort(new Error('timed out'));
    await expect(lone).rejects.toThrow('timed out');
    expect([workSignal!.aborted, (workSignal!.reason as Error).message, flights.size]).toEqual([true, 'timed out', 0]);
    // A caller after the last one left starts afresh instead of joining work that is stopping.
    expect(await flights.do('k2', 'next', undefined, async () => 'fresh')).toEqual({ value: 'fresh', joined: false });
  });

  it('shares a failure with every waiter, and lets a joiner be refused by the join hook alone', async () => {
    const flights = new SingleFlight<number, string>();
    const gate = deferred<number>();
    const a = flights.do('k', 'a', undefined, () => gate.promise);
    const refused = flights.do(
      'k',
      'b',
      undefined,
      () => gate.promise,
      (_flight, waiter) => {
        throw new Error(`no room for ${waiter}`);
      },
    );
    await expect(refused).rejects.toThrow('no room for b');
    const c = flights.do('k', 'c', undefined, () => gate.promise);
    gate.reject(new Error('store down'));
    await expect(a).rejects.toThrow('store down');
    await expect(c).rejects.toThrow('store down');
    expect(flights.size).toBe(0);
  });
});
