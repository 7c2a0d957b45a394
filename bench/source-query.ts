/**
 * What the benchmarks of a catalogued source (a user's table, Heroic's Bigtable rows) time: one KairosDB query, the
 * hourly average grouped by a tag, run through executeQuery (the engine every front end uses) with budgets no bench
 * reaches, once the source's catalogue has finished its first pass.
 */
import { executeQuery, newQueryStats, unlimitedRequest } from '../src/engine/execute.js';
import { parseKairosQuery } from '../src/kairos-json/parse-query.js';
import { IndexLoaders } from '../src/sources/index-loaders.js';
import type { Source } from '../src/sources/source.js';

/** Resolves once the source's catalogue has seen every series: its first pass is over. */
export async function catalogued(source: Source): Promise<void> {
  while (source.capabilities.catalogue!.status().passes === 0) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** A run of the hourly average of `metric` grouped by `tag`: its time, groups, and the points it read. */
export function hourlyAverageBy(source: Source, metric: string, tag: string, startMs: number, endMs: number) {
  const query = parseKairosQuery(
    {
      start_absolute: startMs,
      end_absolute: endMs,
      metrics: [
        {
          name: metric,
          group_by: [{ name: 'tag', tags: [tag] }],
          aggregators: [{ name: 'avg', sampling: { value: 1, unit: 'hours' } }],
        },
      ],
    },
    Date.now(),
    source.limits,
  )[0]!;
  return async (): Promise<{ ms: number; groups: number; pointsRead: number }> => {
    const started = performance.now();
    const stats = newQueryStats();
    const output = await executeQuery(query, {
      source,
      index: new IndexLoaders(),
      budgets: { maxSeries: 1_000_000, maxPointsRead: 1e9, maxPointsReturned: 1e7, onExceed: 'error' },
      request: unlimitedRequest(),
      stats,
      nowMs: Date.now(),
    });
    return { ms: performance.now() - started, groups: output.groups.length, pointsRead: stats.pointsRead };
  };
}
