/**
 * The golden-suite runner: every file under test/golden/cases (points in, KairosDB queries, expected answers) runs
 * against a store from the given factory, once as written and again with pages of one point, with 10 ms rows (so
 * the data spans many partitions), with the points written in shuffled batches, and through the results cache
 * (each case asked twice, the second time from what the first kept); every run must give the expected answer.
 * UPDATE_GOLDEN=1 rewrites the expectations from the first run; review that diff like code.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KairographError } from '../../src/model/errors.js';
import { ResultsCache } from '../../src/sharing/results-cache.js';
import { WriteGenerations } from '../../src/sharing/write-generations.js';
import { executeQuery, newQueryStats, unlimitedRequest, type Budgets } from '../../src/engine/execute.js';
import { IndexLoaders } from '../../src/sources/index-loaders.js';
import type { Store } from '../../src/store/store.js';
import type { ValueType } from '../../src/model/write-batch.js';
import { validateWrite, type SeriesInput } from '../../src/sources/write-validation.js';
import { parseKairosQuery } from '../../src/kairos-json/parse-query.js';
import { KairosdbSource } from '../../src/sources/kairosdb/kairosdb-source.js';
import { toKairosAnswer, type KairosAnswer, type KairosQuery } from './kairos-json.js';

export interface GoldenStoreOptions {
  /** Row width in ms of a fresh store; undefined for KairosDB's default. */
  readonly rowWidth?: number;
}

/** Makes a fresh, empty store; the runner closes it. */
export type GoldenStoreFactory = (options: GoldenStoreOptions) => Promise<Store>;

export interface GoldenSeries {
  readonly metric: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly type: ValueType;
  readonly ttl?: number;
  /** [epoch ms, value]; longs beyond ±2^53 as digit strings. */
  readonly datapoints?: readonly (readonly [number, number | string])[];
  /** Instead of datapoints: `count` points from `start`, `step` ms apart, valued first, first + increment, ... */
  readonly sequence?: {
    readonly start: number;
    readonly step: number;
    readonly count: number;
    readonly first: number;
    readonly increment: number;
  };
}

export interface GoldenCase {
  readonly name: string;
  /** Where the expectation comes from (a KairosDB test, a reference section), when it comes from somewhere. */
  readonly source?: string;
  readonly query: KairosQuery;
  readonly budgets?: Partial<Budgets>;
  /**
   * The points a limit query reads depend on pages and partitions (in KairosDB too, which pushes the limit into
   * every partition read), so only the first variant checks sample_size.
   */
  readonly sampleSizeVaries?: boolean;
  expected?: KairosAnswer;
  /** The message of the InputError or BudgetExceededError the query must fail with. */
  error?: string;
}

export interface GoldenFile {
  readonly description: string;
  /** The request clock (epoch ms) that gaps clamp the end to; default 2030-01-01. */
  readonly now?: number;
  readonly points: readonly GoldenSeries[];
  readonly cases: readonly GoldenCase[];
}

interface Variant {
  readonly name: string;
  readonly rowWidth?: number;
  readonly pageSize?: number;
  /** Partition scans started ahead (EngineContext.readAhead); the store's own when absent. */
  readonly readAhead?: number;
  readonly shuffled?: boolean;
  /** Each case goes through a results cache shared by the file's cases, asked twice. */
  readonly cached?: boolean;
}

const VARIANTS: readonly Variant[] = [
  { name: 'as written' },
  { name: 'pages of one point, three partitions read ahead', pageSize: 1, readAhead: 3 },
  { name: '10 ms rows, none read ahead', rowWidth: 10, readAhead: 0 },
  { name: 'shuffled writes into 10 ms rows', rowWidth: 10, shuffled: true },
  { name: 'through the results cache, 10 ms rows, each case asked twice', rowWidth: 10, cached: true },
];

/** Cases whose second asking was answered (in part) from the results cache, over every file. */
let casesFromCache = 0;

const CASES_DIR = join(import.meta.dirname, 'cases');
const DEFAULT_NOW = Date.UTC(2030, 0, 1);
const GENEROUS: Budgets = {
  maxSeries: 100_000,
  maxPointsRead: 10_000_000,
  maxPointsReturned: 10_000_000,
  onExceed: 'error',
};
const UPDATE = process.env.UPDATE_GOLDEN === '1';

export function describeGoldenSuites(storeName: string, createStore: GoldenStoreFactory): void {
  for (const fileName of readdirSync(CASES_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const path = join(CASES_DIR, fileName);
    const file = JSON.parse(readFileSync(path, 'utf8')) as GoldenFile;
    describe(`${storeName} golden ${fileName}`, () => {
      VARIANTS.forEach((variant, v) => {
        describe(variant.name, () => {
          let store: Store;
          const cache = variant.cached
            ? new ResultsCache({
                maxBytes: 64 * 1024 * 1024,
                freshnessMs: 60_000,
                ttlMs: 3_600_000,
                generations: new WriteGenerations(),
              })
            : undefined;
          beforeAll(async () => {
            store = await createStore(variant.rowWidth !== undefined ? { rowWidth: variant.rowWidth } : {});
            await writePoints(store, file, variant, fileName);
          });
          afterAll(async () => {
            await store.close();
          });
          for (const c of file.cases) {
            it(c.name, async () => {
              let actual = await answer(store, file, c, variant, cache);
              if (cache !== undefined) {
                const stats = newQueryStats();
                const again = await answer(store, file, c, variant, cache, stats);
                expect(again).toEqual(actual);
                if (stats.cacheHits > 0) casesFromCache++;
                actual = again;
              }
              if (c.sampleSizeVaries && v > 0 && 'expected' in actual && c.expected !== undefined) {
                actual.expected = { ...actual.expected, sample_size: c.expected.sample_size };
              }
              if (UPDATE && v === 0) {
                delete c.expected;
                delete c.error;
                Object.assign(c, actual);
              }
              expect(actual).toEqual(c.error !== undefined ? { error: c.error } : { expected: c.expected });
            });
          }
        });
      });
      if (UPDATE) afterAll(() => writeFileSync(path, `${formatJson(file)}\n`));
    });
  }
  describe(`${storeName} golden through the results cache`, () => {
    // Runs after every file: a cache variant that never hit would prove nothing.
    it('answered many cases in part from the cache', () => {
      expect(casesFromCache).toBeGreaterThanOrEqual(MIN_CASES_FROM_CACHE);
    });
  });
}

/** Cases of test/golden/cases whose pipelines qualify for the cache, less some slack for edits of the files. */
const MIN_CASES_FROM_CACHE = 45;

async function answer(
  store: Store,
  file: GoldenFile,
  c: GoldenCase,
  variant: Variant,
  cache?: ResultsCache,
  stats = newQueryStats(),
): Promise<{ expected: KairosAnswer } | { error: string }> {
  try {
    const nowMs = file.now ?? DEFAULT_NOW;
    const output = await executeQuery(parseKairosQuery(c.query, nowMs, store.limits)[0]!, {
      source: new KairosdbSource('kairosdb', store),
      index: new IndexLoaders(),
      budgets: { ...GENEROUS, ...c.budgets },
      request: unlimitedRequest(),
      stats,
      nowMs,
      ...(cache !== undefined ? { cache } : {}),
      ...(variant.pageSize !== undefined ? { pageSize: variant.pageSize } : {}),
      ...(variant.readAhead !== undefined ? { readAhead: variant.readAhead } : {}),
    });
    return { expected: toKairosAnswer(output) };
  } catch (error) {
    if (error instanceof KairographError) return { error: error.message };
    throw error;
  }
}

async function writePoints(store: Store, file: GoldenFile, variant: Variant, seed: string): Promise<void> {
  const inputs: SeriesInput[] = file.points.map((s) => ({
    metric: s.metric,
    tags: s.tags,
    type: s.type,
    ttlSeconds: s.ttl ?? 0,
    points: pointsOf(s),
  }));
  if (inputs.length === 0) return;
  if (!variant.shuffled) {
    await store.write(validateWrite(inputs, 'points', { maxPoints: Number.MAX_SAFE_INTEGER, keys: store.limits }));
    return;
  }
  const random = mulberry32(hash(seed));
  const all = inputs.flatMap((series, s) => series.points.map((point) => ({ s, point })));
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  // A few batches, each with its points in shuffled order.
  const batches = Math.min(all.length, 5);
  for (let b = 0; b < batches; b++) {
    const part = all.slice(Math.floor((b * all.length) / batches), Math.floor(((b + 1) * all.length) / batches));
    const bySeries = new Map<number, SeriesInput['points'][number][]>();
    for (const { s, point } of part) (bySeries.get(s) ?? bySeries.set(s, []).get(s)!).push(point);
    const batch = [...bySeries].map(([s, points]) => ({ ...inputs[s]!, points }));
    await store.write(validateWrite(batch, 'points', { maxPoints: Number.MAX_SAFE_INTEGER, keys: store.limits }));
  }
}

function pointsOf(series: GoldenSeries): { timestamp: number; value: number | string }[] {
  if (series.datapoints !== undefined) return series.datapoints.map(([timestamp, value]) => ({ timestamp, value }));
  const { start, step, count, first, increment } = series.sequence!;
  return Array.from({ length: count }, (_, i) => ({ timestamp: start + i * step, value: first + i * increment }));
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * JSON with two-space indentation, except that anything fitting in 110 characters stays on one line and lists of
 * short items (points) fill lines.
 */
function formatJson(value: unknown, indent = ''): string {
  const flat = JSON.stringify(value);
  if (flat === undefined) return 'null';
  if (flat.length + indent.length <= 110 || typeof value !== 'object' || value === null) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    const items = value.map((v) => JSON.stringify(v) ?? 'null');
    if (items.every((item) => item.length <= 40)) {
      const lines: string[] = [];
      for (const item of items) {
        const last = lines.length - 1;
        if (last >= 0 && inner.length + lines[last]!.length + item.length + 1 <= 110) lines[last] += `,${item}`;
        else lines.push(item);
      }
      return `[\n${lines.map((line) => inner + line).join(',\n')}\n${indent}]`;
    }
    return `[\n${value.map((v) => inner + formatJson(v, inner)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${formatJson(v, inner)}`).join(',\n')}\n${indent}}`;
}
