import { describe, expect, it } from 'vitest';
import { Lane, SLICE_MS, yieldIfDue } from './time-slice.js';

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
  it('asks nothing of work that is within its slice', async () => {
    await new Promise((resolve) => setImmediate(resolve));
    // A fresh slice starts when a queued caller is released; right after one, there is time left.
    await (yieldIfDue() ?? Promise.resolve());
    expect(yieldIfDue()).toBeUndefined();
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
});
