/** Waits cut short by their request's signal: every wait under it, and nothing else. */
import { describe, expect, it } from 'vitest';
import { untilAborted } from './until-aborted.js';

describe('untilAborted', () => {
  it('rejects every wait under way with the reason once its signal aborts, and leaves the settled and the other signals alone', async () => {
    const controller = new AbortController();
    const other = new AbortController();
    const pending = () => {
      const request = {} as {
        promise: Promise<string>;
        resolve: (value: string) => void;
        reject: (error: Error) => void;
      };
      request.promise = new Promise<string>((resolve, reject) => Object.assign(request, { resolve, reject }));
      return request;
    };
    const [first, second, settled, elsewhere] = [pending(), pending(), pending(), pending()];
    const outcomes = [first, second, settled].map((request) =>
      untilAborted(request.promise, controller.signal).then(
        (value) => `resolved ${value}`,
        (error: unknown) => `rejected ${String(error)}`,
      ),
    );
    const otherOutcome = untilAborted(elsewhere.promise, other.signal);
    settled.resolve('page 3');
    await outcomes[2];
    controller.abort('the request ended');
    // What was waited for runs on: a failure after the abort must not go unhandled.
    first.reject(new Error('late'));
    second.resolve('late page');
    elsewhere.resolve('page of the other request');
    expect(await Promise.all(outcomes)).toEqual([
      'rejected the request ended',
      'rejected the request ended',
      'resolved page 3',
    ]);
    expect(await otherOutcome).toBe('page of the other request');
    // A wait under a signal that has aborted fails at once; without a signal it is the promise itself.
    await expect(untilAborted(new Promise(() => {}), controller.signal)).rejects.toBe('the request ended');
    const alone = Promise.resolve('page');
    expect(untilAborted(alone, undefined)).toBe(alone);
  });
});
