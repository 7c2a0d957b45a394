/**
 * `promise`, or its signal's reason as soon as the signal aborts: for waits that a request's end must cut short (a
 * Cassandra page, another reader's pull of a shared scan). What is waited for is not cancelled: it runs to its end and
 * its outcome is dropped (a failure after the abort is never an unhandled rejection).
 *
 * A signal gets one 'abort' listener for all the waits under it: a large dashboard waits on hundreds of pages and as
 * many slices under its request's signal, and adding and removing an EventTarget listener for each showed in its
 * profile.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  const waits = waitsUnder(signal);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (reason: unknown) => {
      promise.catch(() => {});
      reject(reason);
    };
    waits.add(onAbort);
    promise.then(
      (value) => {
        waits.delete(onAbort);
        resolve(value);
      },
      (error: unknown) => {
        waits.delete(onAbort);
        reject(error);
      },
    );
  });
}

type OnAbort = (reason: unknown) => void;

/** The waits under way under each signal, each told the reason when it aborts. */
const waitsBySignal = new WeakMap<AbortSignal, Set<OnAbort>>();

function waitsUnder(signal: AbortSignal): Set<OnAbort> {
  let waits = waitsBySignal.get(signal);
  if (waits === undefined) {
    const all = new Set<OnAbort>();
    signal.addEventListener(
      'abort',
      () => {
        for (const onAbort of all) onAbort(signal.reason);
        all.clear();
      },
      { once: true },
    );
    waitsBySignal.set(signal, (waits = all));
  }
  return waits;
}
