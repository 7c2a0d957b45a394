/**
 * Engine throughput: points per second through executeQuery for avg, sum, percentile and rate with 1-minute
 * sampling, over the dataset held in memory as pages (no store I/O), against a floor measured in the same run: a
 * bare loop summing the same Float64Arrays.
 *
 *   npm run bench:engine [-- --series 100 --points 100000 --step 1000 --runs 5]
 */
import { executeQuery, newQueryStats, unlimitedRequest, type QueryOutput } from '../src/engine/execute.js';
import { IndexLoaders } from '../src/sources/index-loaders.js';
import type { AggregatorSpec, GroupBySpec, MetricQuery } from '../src/model/query.js';
import { KairosdbSource } from '../src/sources/kairosdb/kairosdb-source.js';
import type { ServiceIndex } from '../src/model/service-index.js';
import { DEFAULT_ROW_WIDTH_MS, type RowKey, type RowSpec, type Store } from '../src/store/store.js';
import type { Slice } from '../src/model/series.js';
import { embeddedKeyLimits } from '../src/store/embedded/keys.js';
import { describeShape, METRIC, shapeFromArgs, slicesOf, START_MS, tagsOf, type DatasetShape } from './dataset.js';
import { median, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const shape = shapeFromArgs(args);
const RUNS = Number(args.get('runs') ?? 5);
const PAGE = 4096;
const TOTAL = shape.series * shape.points;

/** Serves pre-built pages: what the engine does, without the cost of decoding a store. */
class MemoryStore implements Store {
  readonly kind = 'embedded' as const;
  // No keys are written; the embedded store's limits at LMDB's default key size stand in.
  readonly limits = embeddedKeyLimits(1978);
  readonly readAhead = 0;
  readonly concurrentReads = 8;
  readonly pages = new Map<RowKey, Slice[]>();
  readonly keys: RowKey[] = [];
  /** An empty service_index, read-only as the rest. */
  readonly serviceIndex: ServiceIndex = {
    maxKeyBytes: 0,
    serviceKeys: async () => [],
    keys: async () => [],
    value: async () => undefined,
    set: async () => Promise.reject(new Error('the benchmark store is read-only')),
    delete: async () => Promise.reject(new Error('the benchmark store is read-only')),
    claim: async () => Promise.reject(new Error('the benchmark store is read-only')),
    complete: async () => Promise.reject(new Error('the benchmark store is read-only')),
  };

  constructor(shape: DatasetShape) {
    for (let s = 0; s < shape.series; s++) {
      // Every series in one row: the 3-week default holds the whole dataset.
      const key: RowKey = {
        metric: METRIC,
        rowTime: START_MS - (START_MS % DEFAULT_ROW_WIDTH_MS),
        dataType: 'kairos_double',
        tags: tagsOf(s),
      };
      this.keys.push(key);
      this.pages.set(key, slicesOf(shape, s, key, PAGE));
    }
  }

  async spec(): Promise<RowSpec> {
    return { unit: 'MILLISECONDS', width: DEFAULT_ROW_WIDTH_MS };
  }
  async metricNames(): Promise<string[]> {
    return [METRIC];
  }
  async rowTimes(): Promise<number[]> {
    return [this.keys[0]!.rowTime];
  }
  async rowKeys(): Promise<RowKey[]> {
    return this.keys;
  }
  async rowKeysAt(_: string, rowTimes: readonly number[]): Promise<RowKey[][]> {
    return rowTimes.map(() => this.keys);
  }
  async legacyRowKeys(): Promise<RowKey[]> {
    return [];
  }
  async *scan(key: RowKey): AsyncGenerator<Slice> {
    yield* this.pages.get(key)!;
  }
  async write(): Promise<void> {
    throw new Error('the benchmark store is read-only');
  }
  async deleteRange(): Promise<void> {
    throw new Error('the benchmark store is read-only');
  }
  async deleteMetricName(): Promise<void> {
    throw new Error('the benchmark store is read-only');
  }
  async ping(): Promise<void> {}
  async close(): Promise<void> {}
}

const store = new MemoryStore(shape);
const MINUTE = { sampling: { value: 1, unit: 'minutes' } };

const CASES: { name: string; aggregators: AggregatorSpec[]; groupBy: GroupBySpec[] }[] = [
  { name: 'avg', aggregators: [{ name: 'avg', params: MINUTE }], groupBy: [] },
  { name: 'sum', aggregators: [{ name: 'sum', params: MINUTE }], groupBy: [] },
  {
    name: 'percentile 0.99',
    aggregators: [{ name: 'percentile', params: { ...MINUTE, percentile: 0.99 } }],
    groupBy: [],
  },
  // A rate across series would meet equal timestamps, so it runs per series, as counters are read. Its answer is
  // as many points as it reads; the second line shows the rate without the cost of 10M points in the answer.
  {
    name: 'rate per minute, per series',
    aggregators: [{ name: 'rate', params: MINUTE }],
    groupBy: [{ name: 'tag', params: { tags: ['series'] } }],
  },
  {
    name: 'rate, then max per hour',
    aggregators: [
      { name: 'rate', params: MINUTE },
      { name: 'max', params: { sampling: { value: 1, unit: 'hours' } } },
    ],
    groupBy: [{ name: 'tag', params: { tags: ['series'] } }],
  },
];

async function run(c: (typeof CASES)[number]): Promise<{ ms: number; out: QueryOutput }> {
  const query: MetricQuery = {
    metric: METRIC,
    range: { startMs: START_MS, endMs: START_MS + shape.points * shape.stepMs },
    tags: [],
    aggregators: c.aggregators,
    groupBy: c.groupBy,
    timeZone: 'UTC',
    order: 'asc',
    excludeTags: false,
  };
  const t = performance.now();
  const out = await executeQuery(query, {
    source: new KairosdbSource('bench', store),
    index: new IndexLoaders(),
    budgets: { maxSeries: 1e6, maxPointsRead: 1e12, maxPointsReturned: 1e12, onExceed: 'error' },
    request: unlimitedRequest(),
    stats: newQueryStats(),
    nowMs: Date.now(),
  });
  return { ms: performance.now() - t, out };
}

/** The floor: summing the very same Float64Arrays in a bare loop. */
function floor(): { ms: number; sum: number } {
  const t = performance.now();
  let sum = 0;
  for (const key of store.keys) {
    for (const slice of store.pages.get(key)!) {
      const values = slice.values as Float64Array;
      for (let i = 0; i < values.length; i++) sum += values[i]!;
    }
  }
  return { ms: performance.now() - t, sum };
}

const mps = (ms: number) => TOTAL / (ms / 1000) / 1e6;

console.log(
  `command: npm run bench:engine -- --series ${shape.series} --points ${shape.points} --step ${shape.stepMs} --runs ${RUNS}`,
);
console.log(
  `dataset: ${describeShape(shape)}, in memory as ${PAGE}-point pages; one group unless noted; 1 warm-up run each`,
);
const floors: number[] = [];
for (let r = 0; r <= RUNS; r++) {
  const f = floor();
  if (r > 0) floors.push(f.ms);
}
const floorMps = mps(median(floors));
console.log(
  `\nfloor (bare loop summing the same Float64Arrays): median ${median(floors).toFixed(1)} ms = ${floorMps.toFixed(0)} M points/s`,
);
for (const c of CASES) {
  const times: number[] = [];
  let output = 0;
  for (let r = 0; r <= RUNS; r++) {
    const { ms, out } = await run(c);
    if (r > 0) times.push(ms);
    output = out.groups.reduce((n, g) => n + g.points.length, 0);
    if (out.sampleSize !== TOTAL) throw new Error(`${c.name} read ${out.sampleSize} points, not ${TOTAL}`);
  }
  const m = median(times);
  console.log(
    `${c.name.padEnd(28)} median ${m.toFixed(1).padStart(8)} ms = ${mps(m).toFixed(1).padStart(6)} M points/s   floor/engine ${(floorMps / mps(m)).toFixed(1)}x   (${output.toLocaleString('en')} points out; runs ${times.map((t) => t.toFixed(0)).join(', ')} ms)`,
  );
}
