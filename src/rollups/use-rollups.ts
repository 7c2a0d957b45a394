/**
 * `useRollups`: a `series` query answered from a roll-up task's metric instead of the raw data, only where the
 * roll-up gives the very same points. The rule, all of it required (anything else reads raw data, and says why):
 * - one aggregator, sum, count, min or max, UTC, aligned to its sampling (align_sampling, KairosDB's default), no
 *   start_time, end_time or time_zone of its own, no limit;
 * - a task's roll-up over the same metric, tag filter and tag group-by, whose one range aggregator is the same kind
 *   (count for count: the query then sums the counts), with a fixed sampling S that divides a day and the query's
 *   sampling, and no align_start_time or align_end_time (its points then sit at the first raw point of each range,
 *   where the raw query puts them);
 * - the query's start and end + 1 ms on S's grid, and every period of the range completed by the task.
 * Then each range of the query is a union of whole ranges of S, each stored as one point at its first raw point's
 * time: sum of sums, sum of counts, min of mins and max of maxes are the raw answer's values at the raw answer's
 * timestamps (sums of doubles up to rounding: they are added in another order; exactly for integers).
 */
import { fixedLengthMs, type Duration } from '../engine/time-units.js';
import { resolveZone } from '../engine/time-units.js';
import { readDuration } from '../engine/params.js';
import type { AggregatorSpec, GroupBySpec, MetricQuery, TagFilter } from '../query/model.js';
import type { RequestContext } from '../server/request-context.js';
import { listRollups, rollupStatus } from './rollup-api.js';
import type { Rollup } from './rollup-task.js';

/** What `useRollups` decided for one query, for its statistics. */
export interface RollupUse {
  /** The task and metric read instead of the raw data; absent when the raw data was read. */
  readonly task?: string;
  readonly metric?: string;
  /** Why the raw data was read; absent when a roll-up was used. */
  readonly reason?: string;
}

/** How each aggregator of a query is answered from the roll-up of which aggregator. */
const FROM_ROLLUP: Readonly<Record<string, { readonly rollup: string; readonly then: string }>> = {
  sum: { rollup: 'sum', then: 'sum' },
  count: { rollup: 'count', then: 'sum' },
  min: { rollup: 'min', then: 'min' },
  max: { rollup: 'max', then: 'max' },
};

const DAY_MS = 86_400_000;

/** The query to run (the roll-up's, or the given one) and what was decided. */
export async function planWithRollups(ctx: RequestContext, query: MetricQuery): Promise<{ query: MetricQuery; use: RollupUse }> {
  const raw = (reason: string) => ({ query, use: { reason } });
  if (query.source !== undefined && query.source !== ctx.sources.primary.name) return raw('roll-up tasks are the primary source\'s');
  const shape = queryShape(query);
  if (typeof shape === 'string') return raw(shape);
  const reasons: string[] = [];
  for (const stored of await listRollups(ctx)) {
    const task = stored.task;
    if (task === undefined) continue;
    for (const rollup of task.rollups) {
      for (const candidate of rollup.queries) {
        const why = mismatch(candidate, rollup, query, shape);
        if (why !== undefined) {
          if (candidate.metric === query.metric) reasons.push(`${task.id}: ${why}`);
          continue;
        }
        const status = await rollupStatus(ctx, stored);
        const coveredFrom = status.coveredFromMs;
        if (coveredFrom === undefined || status.completedThroughMs === undefined || coveredFrom > query.range.startMs || status.completedThroughMs < query.range.endMs + 1) {
          reasons.push(`${task.id}: its completed periods (${coveredFrom ?? '-'} to ${status.completedThroughMs ?? '-'}) do not cover the range`);
          continue;
        }
        const rolled: MetricQuery = {
          ...query,
          metric: rollup.saveAs,
          tags: [{ tag: 'saved_from', in: [query.metric] }],
          aggregators: [{ name: FROM_ROLLUP[shape.aggregator.name]!.then, params: shape.aggregator.params }],
        };
        return { query: rolled, use: { task: task.id, metric: rollup.saveAs } };
      }
    }
  }
  return raw(reasons.length > 0 ? reasons.join('; ') : `no roll-up task reads ${query.metric}`);
}

interface QueryShape {
  readonly aggregator: AggregatorSpec;
  readonly samplingMs: number;
}

/** The query's one aggregator and its sampling, or why no roll-up can answer it. */
function queryShape(query: MetricQuery): QueryShape | string {
  if (query.limit !== undefined && query.limit > 0) return 'the query has a limit';
  if (!isUtc(query.timeZone)) return 'the query is not in UTC';
  if (query.aggregators.length !== 1) return 'only a query of one aggregator (sum, count, min or max) reads roll-ups';
  const aggregator = query.aggregators[0]!;
  if (FROM_ROLLUP[aggregator.name] === undefined) return `${aggregator.name} is not read from roll-ups (sum, count, min and max are)`;
  const samplingMs = alignedSamplingMs(aggregator, true);
  if (samplingMs === undefined) return "the aggregator's sampling is not a fixed length aligned to it";
  return { aggregator, samplingMs };
}

/** Why `candidate` (a roll-up's query) cannot answer `query`, or undefined when it can. */
function mismatch(candidate: MetricQuery, rollup: Rollup, query: MetricQuery, shape: QueryShape): string | undefined {
  if (candidate.metric !== query.metric) return 'another metric';
  if (canonicalTags(candidate.tags) !== canonicalTags(query.tags)) return 'another tag filter';
  if (canonicalGroupBy(candidate.groupBy) !== canonicalGroupBy(query.groupBy)) return 'another group-by';
  if (!isUtc(candidate.timeZone) || (rollup.timeZone !== undefined && !isUtc(rollup.timeZone))) return 'not in UTC';
  if (candidate.limit !== undefined && candidate.limit > 0) return 'its query has a limit';
  const own = candidate.aggregators.filter((a) => a.name !== 'save_as');
  if (own.length !== 1 || own[0]!.name !== FROM_ROLLUP[shape.aggregator.name]!.rollup) return `its aggregator is not ${FROM_ROLLUP[shape.aggregator.name]!.rollup} alone`;
  const samplingMs = alignedSamplingMs(own[0]!, false);
  if (samplingMs === undefined || DAY_MS % samplingMs !== 0) return "its sampling is not a fixed length that divides a day, aligned, with its points at each range's first point";
  if (shape.samplingMs % samplingMs !== 0) return `the query's sampling is not a multiple of its ${samplingMs} ms`;
  if (query.range.startMs % samplingMs !== 0 || (query.range.endMs + 1) % samplingMs !== 0) return `the range does not start and end on its ${samplingMs} ms ranges`;
  return undefined;
}

/**
 * The sampling in ms of a range aggregator aligned to its sampling with nothing of its own that moves its ranges;
 * `mayMoveTimestamps` allows align_start_time and align_end_time (the query's own, applied to both answers alike).
 */
function alignedSamplingMs(aggregator: AggregatorSpec, mayMoveTimestamps: boolean): number | undefined {
  const p = aggregator.params;
  const known = new Set(['sampling', 'align_sampling', ...(mayMoveTimestamps ? ['align_start_time', 'align_end_time'] : [])]);
  if (Object.keys(p).some((key) => !known.has(key) && p[key] !== undefined && p[key] !== null && p[key] !== false)) return undefined;
  if (p['align_sampling'] === false) return undefined;
  let sampling: Duration;
  try {
    sampling = readDuration(p['sampling'] ?? { value: 1, unit: 'milliseconds' }, 'sampling');
  } catch {
    return undefined;
  }
  return fixedLengthMs(sampling, resolveZone('UTC')!);
}

function isUtc(zone: string): boolean {
  return zone === '' || zone === 'UTC' || zone === 'Etc/UTC';
}

function canonicalTags(tags: TagFilter): string {
  return JSON.stringify(
    [...tags]
      .map((c) => ({ tag: c.tag, in: c.in ? [...c.in].sort() : null, regex: c.regex ?? null, notIn: c.notIn ? [...c.notIn].sort() : null }))
      .sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0)),
  );
}

function canonicalGroupBy(groupBy: readonly GroupBySpec[]): string {
  return JSON.stringify(groupBy.map((g) => (g.name === 'tag' ? { name: 'tag', tags: [...((g.params['tags'] as string[] | undefined) ?? [])].sort() } : { name: g.name, params: g.params })));
}
