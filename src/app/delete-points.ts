/**
 * The one delete path, shared by GraphQL's deletePoints and the KairosDB REST API's /datapoints/delete and
 * DELETE /metric/{name}: find the matching partitions through the request's loaders as a query does, then have the
 * source delete each partition's part of the range (reference §4.4).
 */
import type { Source } from '../sources/source.js';
import type { IndexLoaders } from '../sources/index-loaders.js';
import type { TimeRange } from '../model/query.js';
import type { SeriesPredicate } from '../model/tag-filter.js';

export interface DeleteSummary {
  /** Distinct series (data type and tag set) that had partitions in the range. */
  readonly series: number;
  /** Partitions the range covered whole: one partition delete each. */
  readonly partitionsDeleted: number;
  /** Partitions the range covered in part: one range delete each. */
  readonly rangesDeleted: number;
  /** From planning (partitions of a data type Kairograph cannot decode are left alone). */
  readonly warnings: readonly string[];
}

/** `metric` must already be a valid name and `matches` a compiled filter: callers validate in their own vocabulary. */
export async function deletePoints(
  source: Source,
  loaders: IndexLoaders,
  metric: string,
  range: TimeRange,
  matches: SeriesPredicate,
): Promise<DeleteSummary> {
  const plan = await source.findSeries(loaders, metric, range, matches);
  const series = new Set<string>();
  let partitionsDeleted = 0;
  let rangesDeleted = 0;
  for (const key of plan.partitions) {
    series.add(JSON.stringify([key.dataType, key.tags]));
    if ((await source.deleteRange(key, range.startMs, range.endMs)) === 'partition') partitionsDeleted++;
    else rangesDeleted++;
  }
  // The index changed under this request's loaders.
  loaders.clear();
  return { series: series.size, partitionsDeleted, rangesDeleted, warnings: plan.warnings };
}
