/** Time slicing: work gives the thread back between slices, short work goes first, and no lane starves. */
import { describe, expect, it, vi } from 'vitest';
import { Lane, SHORT_MS, SLICE_MS, yieldIfDue } from './time-slice.js';

/** Busy work that checks the slice between units, as the engine does between runs; records when it ran. */
async function busy(name: string, units: number, trace: string[], lane?: Lane): Promise<void> {
  for (let i = 0; i < units; i++) {
    const until = performance.now() + 1;
    while (performance.now() < until);
    trace.push(name);
    const turn = yieldIfDue(lane);
    if (turn !== undefined) await turn;
  }
}

describe('yieldIfDue', () => {
  it('asks nothing of work that is within its slice, and a turn of work that has used it up', async () => {
    // On a clock of the test's own, which moves only when told: a loaded machine may pause longer than a slice
    // between any two lines. It starts a slice after the real one, so a slice is due at once.
    let clock = performance.now() + SLICE_MS;
    const now = vi.spyOn(performance, 'now').mockImplementation(() => clock);
    try {
      // Due: the caller waits for its turn, which starts a fresh slice at `clock`.
      const turn = yieldIfDue();
      expect(turn).toBeInstanceOf(Promise);
      await turn;
      clock += SLICE_MS - 1;
      expect(yieldIfDue()).toBeUndefined();
      clock += 1;
      const next = yieldIfDue();
      expect(next).toBeInstanceOf(Promise);
      await next;
    } finally {
      now.mockRestore();
    }
    // The last slice began on the test's clock, a little ahead of the real one: the next test starts past it.
    await new Promise((resolve) => setTimeout(resolve, 3 * SLICE_MS));
  });

  it('lets I/O callbacks run between the slices of long work', async () => {
    const trace: string[] = [];
    const work = busy('work', 6 * SLICE_MS, trace);
    // A timer due at once stands for a request arriving: it must not wait for the work to finish.
    setTimeout(() => trace.push('timer'), 0);
    await work;
    const timerAt = trace.indexOf('timer');
    expect(timerAt).toBeGreaterThan(0);
    expect(timerAt).toBeLessThan(trace.length - SLICE_MS);
  });

  it('takes queued work in turns, one slice each', async () => {
    const trace: string[] = [];
    await Promise.all([busy('a', 4 * SLICE_MS, trace), busy('b', 4 * SLICE_MS, trace)]);
    // Runs of one task are at most about a slice long: neither runs to its end before the other starts.
    const runs = trace.reduce<number[]>((lengths, name, i) => {
      if (i > 0 && trace[i - 1] === name) lengths[lengths.length - 1]!++;
      else lengths.push(1);
      return lengths;
    }, []);
    expect(runs.length).toBeGreaterThanOrEqual(4);
    expect(Math.max(...runs)).toBeLessThanOrEqual(2 * SLICE_MS);
  });

  it('gives the next turn to the lane that has used the least time, so short work finishes first', async () => {
    const trace: string[] = [];
    const heavy = [new Lane(), new Lane()];
    const running = heavy.map((lane, i) => busy(`heavy${i}`, 20 * SLICE_MS, trace, lane));
    // The short lane arrives once each heavy lane has had four slices, so it has used far less than either.
    while (!heavy.every((lane) => lane.used >= 4 * SLICE_MS)) await new Promise((resolve) => setTimeout(resolve, 1));
    const arrivedAt = trace.length;
    await busy('short', SLICE_MS, trace, new Lane());
    const finishedAt = trace.lastIndexOf('short');
    await Promise.all(running);
    // Between its arrival and its end, the short lane had every turn but the one already running.
    const heavyMeanwhile = trace.slice(arrivedAt, finishedAt).filter((name) => name !== 'short').length;
    expect(heavyMeanwhile).toBeLessThanOrEqual(2 * SLICE_MS);
  });

  it('does not let a stream of newer heavy lanes starve one that has had its share', async () => {
    const trace: string[] = [];
    const old = new Lane();
    let oldDone = false;
    const running = busy('old', 12 * SLICE_MS, trace, old).then(() => (oldDone = true));
    while (old.used < SHORT_MS + 2 * SLICE_MS) await new Promise((resolve) => setTimeout(resolve, 1));
    // Heavy newcomers, two at a time, each ending with less time used than the old lane has had: by least time used
    // alone, every one of them would go first, and the old lane would wait for the whole stream.
    let started = 0;
    const newcomer = async (): Promise<void> => {
      while (!oldDone && started < 20) {
        started++;
        await busy(`new${started}`, 6 * SLICE_MS, trace, new Lane());
      }
    };
    await Promise.all([newcomer(), newcomer(), running]);
    expect(oldDone).toBe(true);
    // The old lane needed about four more slices; it had them while the stream went on, long before its end.
    expect(started).toBeLessThan(12);
  });
});
