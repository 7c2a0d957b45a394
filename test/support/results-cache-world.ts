/**
 * A world for the results cache's tests (src/engine/bucket-cache.test.ts, bucket-cache-reads.test.ts): an embedded
 * store behind the invalidating source, a cache on a wall clock the test moves, and a query answered with the cache or
 * without it, as the store answers it.
 */
import { executeQuery, unlimitedRequest, type QueryOutput, type QueryStats } from '../../src/engine/execute.js';
import { KairographError } from '../../src/model/errors.js';
import type { MetricQuery } from '../../src/model/query.js';
import type { SeriesWrite } from '../../src/model/write-batch.js';
import { InvalidatingSource } from '../../src/sharing/invalidating-source.js';
import { ResultsCache } from '../../src/sharing/results-cache.js';
import { SharedScans } from '../../src/sharing/shared-scans.js';
import { WriteGenerations } from '../../src/sharing/write-generations.js';
import { IndexLoaders } from '../../src/sources/index-loaders.js';
import { KairosdbSource } from '../../src/sources/kairosdb/kairosdb-source.js';
import type { Source } from '../../src/sources/source.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import type { Store } from '../../src/store/store.js';
import { tempDir } from './temp-dir.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
/** The Saturday before Berlin's clocks went forward (2024-03-31): calendar ranges of 23 hours are in the data. */
export const T0 = Date.UTC(2024, 2, 29);

const opened: Store[] = [];

/** Closes the stores of the worlds made since the last call: each test file's afterEach. */
export async function closeWorlds(): Promise<void> {
  await Promise.all(opened.splice(0).map((s) => s.close()));
}

export interface World {
  readonly source: Source;
  readonly cache: ResultsCache;
  clockMs: number;
}

/** `clockMs` is the wall clock the cache sees (it keeps nothing that ended within the freshness window of it either). */
export async function world(initial: SeriesWrite[], clockMs: number): Promise<World> {
  const inner = await EmbeddedStore.open({ path: tempDir('kairograph-cache-'), rowWidth: 6 * HOUR });
  opened.push(inner);
  await inner.write({ series: initial });
  const generations = new WriteGenerations();
  const w: World = {
    source: new InvalidatingSource(new KairosdbSource('kairosdb', inner), generations, new SharedScans(generations)),
    clockMs,
    cache: undefined!,
  };
  return Object.assign(w, {
    cache: new ResultsCache({
      maxBytes: 32 * 1024 * 1024,
      freshnessMs: 60_000,
      ttlMs: DAY,
      generations,
      now: () => w.clockMs,
    }),
  });
}

/** The query's answer with the cache or without it, or the message of the error it fails with. */
export async function answer(
  w: World,
  query: MetricQuery,
  nowMs: number,
  cached: boolean,
  stats: QueryStats,
): Promise<{ output: QueryOutput } | { error: string }> {
  try {
    const output = await executeQuery(query, {
      source: w.source,
      index: new IndexLoaders(),
      budgets: { maxSeries: 1000, maxPointsRead: 1e9, maxPointsReturned: 1e9, onExceed: 'error' },
      request: unlimitedRequest(),
      stats,
      nowMs,
      ...(cached ? { cache: w.cache } : {}),
    });
    return { output };
  } catch (error) {
    if (error instanceof KairographError) return { error: error.message };
    throw error;
  }
}
