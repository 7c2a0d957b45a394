/**
 * bench:promql's dataset, the same on every run: a counter (for rate), a gauge (for avg_over_time and sum by) and a
 * classic histogram's `_bucket` counters with an `le` label (for histogram_quantile), one sample every 10 s from
 * bench/dataset.ts's start, tagged as its series are (host, series), its values built on its generator. As KairosDB
 * series (metric and tags) for the stores, as labelled series for Prometheus's remote write.
 */
import type { SeriesWrite } from '../src/model/write-batch.js';
import type { WriteSeries } from '../test/support/remote-write.js';
import { START_MS, tagsOf, valueAt } from './dataset.js';

export const STEP_MS = 10_000;
export const COUNTER = 'bench_requests_total';
export const GAUGE = 'bench_queue_length';
export const BUCKETS = 'bench_request_duration_seconds_bucket';
/** Series of the counter and of the gauge each; the histogram has HISTOGRAMS hosts × LE.length buckets. */
export const SERIES = 20;
export const HISTOGRAMS = 5;
const LE = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'];
/** Every series of the dataset: 20 counters, 20 gauges, 60 buckets. */
export const SERIES_TOTAL = 2 * SERIES + HISTOGRAMS * LE.length;

export { START_MS };

export interface PromqlSeries {
  readonly metric: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly timestamps: readonly number[];
  readonly values: readonly number[];
}

/** Every series of the dataset, `points` samples each. */
export function promqlDataset(points: number): PromqlSeries[] {
  const timestamps = Array.from({ length: points }, (_, i) => START_MS + i * STEP_MS);
  const out: PromqlSeries[] = [];
  for (let s = 0; s < SERIES; s++) {
    // valueAt rises by 0.5 a step give or take its noise of less than 1: adding another 0.5 a step makes every step
    // an increase, so the counter only resets where it is made to (series 0, halfway: a restarted process).
    const reset = s === 0 ? points >> 1 : points;
    const counter = (i: number) => valueAt(s, i) + 0.5 * i;
    out.push({
      metric: COUNTER,
      tags: tagsOf(s),
      timestamps,
      values: timestamps.map((_, i) => (i < reset ? counter(i) : counter(i) - counter(reset))),
    });
    out.push({ metric: GAUGE, tags: tagsOf(s), timestamps, values: timestamps.map((_, i) => valueAt(s, i)) });
  }
  for (let h = 0; h < HISTOGRAMS; h++) out.push(...histogram(h, timestamps));
  return out;
}

/** The points as KairosDB series writes of about `batchPoints` points each, for a store's `write`. */
export function* storeBatches(dataset: readonly PromqlSeries[], batchPoints: number): Generator<SeriesWrite[]> {
  for (const s of dataset)
    for (let from = 0; from < s.timestamps.length; from += batchPoints)
      yield [
        {
          metric: s.metric,
          tags: s.tags,
          type: 'double',
          ttlSeconds: 0,
          timestamps: s.timestamps.slice(from, from + batchPoints),
          values: s.values.slice(from, from + batchPoints),
        },
      ];
}

/** The points as Prometheus's labelled series: the metric is `__name__`, the tags are labels. */
export function asWriteSeries(dataset: readonly PromqlSeries[]): WriteSeries[] {
  return dataset.map((s) => ({
    labels: { __name__: s.metric, ...s.tags },
    timestampsMs: s.timestamps,
    values: s.values,
  }));
}

/**
 * One host's request latencies as cumulative bucket counters: a few requests every step, latencies from 3 ms to about
 * 3 s spread evenly in log scale, drawn from the generator's noise (valueAt's fractional part).
 */
function histogram(h: number, timestamps: readonly number[]): PromqlSeries[] {
  const bounds = LE.map((le) => (le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le)));
  const counts = bounds.map(() => 0);
  const columns = bounds.map(() => [] as number[]);
  const noise = (k: number) => valueAt(100 + h, k) % 1;
  timestamps.forEach((_, i) => {
    const requests = 2 + Math.floor(noise(2 * i) * 8);
    for (let r = 0; r < requests; r++) {
      const latency = 0.003 * 10 ** (3 * noise(2 * i + 1 + r * 7919));
      bounds.forEach((le, b) => {
        if (latency <= le) counts[b]!++;
      });
    }
    for (const [b, count] of counts.entries()) columns[b]!.push(count);
  });
  const tags = tagsOf(h);
  return LE.map((le, b) => ({ metric: BUCKETS, tags: { ...tags, le }, timestamps, values: columns[b]! }));
}
