/**
 * What an evaluation spends: it gives the thread back while it works (a timer is served during a long range query,
 * and an abort stops it mid-way), and it holds no more samples than its limit, a subquery's inner points counted.
 */
import { describe, expect, it } from 'vitest';
import { TOO_MANY_SAMPLES, TooManySamplesError } from './eval-meter.js';
import { InMemorySeries } from './in-memory-series.js';
import { labelsFromRecord } from './labels.js';
import { PromqlEngine } from './promql-engine.js';
import type { Matcher } from './matcher.js';
import type { SelectedSeries, SelectHints, SeriesAccess } from './series-access.js';

const SERIES = 40;
const STEP_MS = 15_000;
const POINTS = 2_000;

/** Counters rising by 2 every 15s, in chunks of 100, counting the series the engine has pulled. */
function counters(): SeriesAccess & { pulled: number } {
  const memory = new InMemorySeries(100);
  const times = Array.from({ length: POINTS }, (_, i) => i * STEP_MS);
  for (let k = 0; k < SERIES; k++)
    memory.add(
      labelsFromRecord({ __name__: 'x_total', k: String(k) }),
      times,
      times.map((_, i) => 2 * i),
    );
  const access = {
    pulled: 0,
    async *select(matchers: readonly Matcher[], hints: SelectHints): AsyncIterable<SelectedSeries> {
      for await (const series of memory.select(matchers, hints)) {
        access.pulled++;
        yield series;
      }
    },
  };
  return access;
}

/** Many steps over every series, each step's window a subquery's 120 points: far more than a slice of work. */
const HEAVY = 'count(max_over_time(x_total[30m:15s]))';
const END_MS = (POINTS - 1) * STEP_MS;

describe('the evaluation and the thread', () => {
  it('yields its turn while it evaluates, so a timer is served within a bound, and answers as it would', async () => {
    const ticks: number[] = [];
    let evaluating = true;
    const tick = () => {
      ticks.push(performance.now());
      if (evaluating) setTimeout(tick, 0);
    };
    const started = performance.now();
    setTimeout(tick, 0);
    const result = await new PromqlEngine(counters()).rangeQuery(HEAVY, 0, END_MS, STEP_MS);
    evaluating = false;
    const ended = performance.now();
    if (result.value.type !== 'matrix') throw new Error(`not a matrix: ${result.value.type}`);
    expect(result.value.series.length).toBe(1);
    expect(result.value.series[0]!.values.length).toBe(POINTS);
    expect(new Set(result.value.series[0]!.values)).toEqual(new Set([SERIES]));
    // The timer ran while the evaluation was under way (on one thread, only if the evaluation gave the thread back),
    // again and again: it never waited more than a quarter of the evaluation, nor long in absolute terms (a slice is
    // 8 ms; the bounds leave room for a machine so loaded that the process itself waits for a core).
    const during = ticks.filter((t) => t < ended);
    expect(during.length).toBeGreaterThanOrEqual(4);
    const waits = [during[0]! - started, ...during.slice(1).map((t, i) => t - during[i]!)];
    expect(Math.max(...waits)).toBeLessThan(Math.max(50, (ended - started) / 4));
    expect(Math.max(...waits)).toBeLessThan(250);
  });

  it('stops mid-evaluation when its signal aborts, with the reason, reading no further series', async () => {
    const access = counters();
    const controller = new AbortController();
    const reason = new Error('client went away');
    // Aborted at the evaluation's first turn back: a time when it has read some series and not all.
    setImmediate(() => controller.abort(reason));
    const query = new PromqlEngine(access).rangeQuery(
      'max_over_time(x_total[1h])',
      0,
      END_MS,
      STEP_MS / 15,
      controller.signal,
    );
    await expect(query).rejects.toBe(reason);
    expect(access.pulled).toBeGreaterThan(0);
    expect(access.pulled).toBeLessThan(SERIES);
  });
});

describe('the samples limit', () => {
  /** Two series with a point every second from 0 to 10s. */
  function seconds(): InMemorySeries {
    const memory = new InMemorySeries();
    const times = Array.from({ length: 11 }, (_, i) => i * 1000);
    for (const k of ['a', 'b'])
      memory.add(
        labelsFromRecord({ __name__: 'g', k }),
        times,
        times.map((t) => t / 1000),
      );
    return memory;
  }

  it("counts a subquery's inner points: its selectors' series over its own steps, and the points it keeps", async () => {
    // At 10s, [10s:1s] evaluates g at 1s..10s (left-open): 2 series × 10 steps held, then 2 × 10 points kept: 40.
    const query = 'max_over_time(g[10s:1s])';
    const fits = await new PromqlEngine(seconds(), { maxSamples: 40 }).instantQuery(query, 10_000);
    expect(fits.value).toMatchObject({ type: 'vector', samples: [{ value: 10 }, { value: 10 }] });
    const over = new PromqlEngine(seconds(), { maxSamples: 39 }).instantQuery(query, 10_000);
    await expect(over).rejects.toThrow(TooManySamplesError);
    await expect(over).rejects.toMatchObject({ type: 'execution', message: TOO_MANY_SAMPLES, limit: 39 });
    // Without the subquery, the same selector holds a sample per series at the one step.
    const plain = await new PromqlEngine(seconds(), { maxSamples: 2 }).instantQuery('max_over_time(g[10s])', 10_000);
    expect(plain.value).toMatchObject({ type: 'vector', samples: [{ value: 10 }, { value: 10 }] });
    await expect(new PromqlEngine(seconds(), { maxSamples: 1 }).instantQuery('g', 10_000)).rejects.toThrow(
      'query processing would load too many samples into memory in query execution',
    );
  });

  it('refuses a limit that is not positive, naming it', () => {
    expect(() => new PromqlEngine(seconds(), { maxSamples: 0 })).toThrow('maxSamples must be a positive number: 0');
  });
});
