/**
 * `/datapoints/query/tags`: the tags of a metric's series from the row keys in a time range (KairosDB's row
 * granularity), bounded: only the latest `maxRowPeriods` row periods that have data in the range are read, so the
 * `start_absolute: 0` that grafana/kairosdb-datasource sends for autocompletion never walks all history.
 */
import { dict } from '../lib/dict.js';
import type { IndexLoaders } from '../sources/index-loaders.js';
import type { MetricQuery } from '../model/query.js';
import { compileTagFilter } from '../model/tag-filter.js';
import type { Source } from '../sources/source.js';

export interface FoundTags {
  /** Tag name → sorted distinct values, names sorted. */
  readonly tags: Record<string, string[]>;
  readonly warnings: readonly string[];
}

/**
 * Index reads of the KairosDB layout: one row_key_time_index read for the range (one small partition: a row per row
 * period), at most `maxRowPeriods` row_keys reads, and one legacy-index read from the earliest row period kept to the
 * end.
 */
export async function findTags(
  source: Source,
  loaders: IndexLoaders,
  query: MetricQuery,
  maxRowPeriods: number,
): Promise<FoundTags> {
  const matches = compileTagFilter(query.tags, 'tags');
  const plan = await source.findSeries(loaders, query.metric, query.range, matches, { latestPeriods: maxRowPeriods });
  const values = new Map<string, Set<string>>();
  for (const key of plan.partitions) {
    for (const [name, value] of Object.entries(key.tags)) {
      const set = values.get(name);
      if (set) set.add(value);
      else values.set(name, new Set([value]));
    }
  }
  const tags = dict<string[]>();
  for (const name of [...values.keys()].sort()) tags[name] = [...values.get(name)!].sort();
  return { tags, warnings: plan.warnings };
}
