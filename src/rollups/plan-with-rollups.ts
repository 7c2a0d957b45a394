/**
 * The plan of a query rewrite through roll-ups (GraphQL's `useRollups`): which parts of a `series` query's range
 * roll-up tasks' metrics answer with the very same points as the raw data, and which are read raw, each with why. No
 * I/O but the tasks and their statuses from the roll-up service; query-through-rollups.ts runs the plan.
 *
 * The query qualifies (anything else reads raw data, and says why) when it has
 * - one aggregator, sum, count, min, max or avg, UTC, aligned to its sampling (align_sampling, KairosDB's default),
 *   with no start_time, end_time or time_zone of its own, and no limit; in descending order only with
 *   align_start_time or align_end_time (without them each range's point is at its last raw point there);
 * - no group-by but tags;
 * - a roll-up over the same metric, tag filter and tag group-by whose one range aggregator answers it: sum for sum,
 *   count for count (the counts are then summed), min for min, max for max, and for avg both a sum and a count
 *   roll-up (sum of the sums / sum of the counts). Each has a fixed sampling S that divides a day and the query's
 *   sampling W, and no align_start_time or align_end_time (its points then sit at the first raw point of each range,
 *   where the raw query puts them).
 * The query's ranges start at its aligned anchor (midnight, Monday, a whole second) and go on every W; those ranges
 * that lie wholly within the periods the roll-ups completed form the middle part of the range, read from the
 * roll-ups; the ranges before and after it are read raw. Each part's query keeps the whole query's anchor
 * (`start_time`), so every range is the raw query's range, answered whole by one part. A middle range is a union of
 * whole roll-up ranges, each stored as one point at its first raw point: sum of sums, sum of counts, min of mins, max
 * of maxes and sum of sums / sum of counts are the raw answer's values at the raw answer's timestamps (sums of doubles
 * up to rounding, since they are added in another order; exactly for integers).
 */
import type { QueryRewrite } from '../app/query-record.js';
import type { RequestScope } from '../app/request-scope.js';
import { readDuration } from '../engine/params.js';
import type { AggregatorSpec, GroupBySpec, MetricQuery, TagFilter } from '../model/query.js';
import { alignedAnchor, fixedLengthMs, resolveZone, type Duration } from '../model/time-units.js';
import type { RollupService } from './rollup-service.js';
import type { Rollup } from './rollup-task.js';
import type { TaskStatus } from './task-status.js';
import type { StoredTask } from './task-store.js';

/** What the rollup service tells the rewrite: the tasks and how far each has rolled up. */
type Tasks = Pick<RollupService, 'list' | 'status'>;

/**
 * One read of a plan: a query over a part of the range, of the raw data or of a roll-up's metric, and what was read
 * (the roll-up instead of the raw data, or why the raw data was read).
 */
interface PlannedRead {
  readonly query: MetricQuery;
  readonly use: QueryRewrite;
}

/**
 * A part of the query's range, in time order: read once, or (avg) a roll-up of sums divided by a roll-up of counts,
 * with the raw query of the part to fall back on.
 */
export type PlannedPart =
  | { readonly read: PlannedRead }
  | { readonly sums: PlannedRead; readonly counts: PlannedRead; readonly raw: MetricQuery };

type RollupKind = 'sum' | 'count' | 'min' | 'max';

/** The roll-ups each aggregator of a query is answered from, and the aggregator that combines their points. */
const FROM_ROLLUPS: Readonly<Record<string, { readonly rollups: readonly RollupKind[]; readonly merge: string }>> = {
  sum: { rollups: ['sum'], merge: 'sum' },
  count: { rollups: ['count'], merge: 'sum' },
  min: { rollups: ['min'], merge: 'min' },
  max: { rollups: ['max'], merge: 'max' },
  avg: { rollups: ['sum', 'count'], merge: 'sum' },
};

const DAY_MS = 86_400_000;
/** The tag KairosDB's save_as gives a roll-up's points: the metric they were rolled up from. */
export const SAVED_FROM = 'saved_from';

/** The parts of the query's range in time order, each with the reads that answer it. */
export async function planWithRollups(ctx: RequestScope, rollups: Tasks, query: MetricQuery): Promise<PlannedPart[]> {
  const raw = (reason: string): PlannedPart[] => [{ read: { query, use: { reason } } }];
  if (query.source !== undefined && query.source !== ctx.sources.primary.name)
    return raw("roll-up tasks are the primary source's");
  const shape = queryShape(query);
  if (typeof shape === 'string') return raw(shape);
  const tasks = await rollups.list(ctx);
  const reasons: string[] = [];
  const found: Candidate[] = [];
  // Read once per task: avg's sum and count roll-ups are often one task's.
  const statuses = new Map<string, Promise<TaskStatus>>();
  const statusOf = (stored: StoredTask) => {
    let status = statuses.get(stored.id);
    if (status === undefined) statuses.set(stored.id, (status = rollups.status(ctx, stored)));
    return status;
  };
  for (const kind of FROM_ROLLUPS[shape.aggregator.name]!.rollups) {
    const candidate = await findRollup(tasks, statusOf, query, shape, kind, reasons);
    if (candidate === undefined)
      return raw(reasons.length > 0 ? reasons.join('; ') : `no roll-up task reads ${query.metric} through ${kind}`);
    found.push(candidate);
  }
  const names = [...new Set(found.map((c) => c.task))].join(' and ');
  const { startMs, endMs } = query.range;
  const w = shape.samplingMs;
  const anchor = alignedAnchor(startMs, shape.sampling.unit, resolveZone('UTC')!);
  const off = found.find((c) => anchor % c.samplingMs !== 0);
  if (off !== undefined)
    return raw(`${off.task}: the query's ranges (from ${iso(anchor)}) are not on its ${off.samplingMs} ms ranges`);
  // The middle part: the query's whole ranges that lie within every roll-up's completed periods.
  const lo = Math.max(startMs, ...found.map((c) => c.coveredFromMs));
  const hi = Math.min(endMs + 1, ...found.map((c) => c.completedThroughMs));
  const from = anchor + Math.ceil((lo - anchor) / w) * w;
  const to = anchor + Math.floor((hi - anchor) / w) * w;
  const spans = [...new Set(found.map((c) => `${iso(c.coveredFromMs)} to ${iso(c.completedThroughMs)}`))];
  const covered = `${spans.length === 1 ? 'its' : 'their'} completed periods (${spans.join(' and ')})`;
  if (from >= to) return raw(`${names}: ${covered} hold no whole range of the query`);

  const partOf = (fromMs: number, toMs: number): MetricQuery => ({
    ...query,
    range: { startMs: fromMs, endMs: toMs - 1 },
    // Every part's ranges start where the whole query's do.
    aggregators:
      fromMs === startMs
        ? query.aggregators
        : [{ name: shape.aggregator.name, params: { ...shape.aggregator.params, start_time: startMs } }],
  });
  const rolled = (candidate: Candidate): PlannedRead => {
    const part = partOf(from, to);
    return {
      query: {
        ...part,
        metric: candidate.metric,
        tags: [{ tag: SAVED_FROM, in: [query.metric] }],
        aggregators: part.aggregators.map((a) => ({ ...a, name: FROM_ROLLUPS[shape.aggregator.name]!.merge })),
      },
      use: { task: candidate.task, metric: candidate.metric },
    };
  };
  const outside = (fromMs: number, toMs: number): PlannedPart => ({
    read: {
      query: partOf(fromMs, toMs),
      use: { reason: `${names}: ${iso(fromMs)} to ${iso(toMs)} is no whole range of the query within ${covered}` },
    },
  });
  const parts: PlannedPart[] = [];
  if (startMs < from) parts.push(outside(startMs, from));
  parts.push(
    found.length === 1
      ? { read: rolled(found[0]!) }
      : { sums: rolled(found[0]!), counts: rolled(found[1]!), raw: partOf(from, to) },
  );
  if (to <= endMs) parts.push(outside(to, endMs + 1));
  return parts;
}

interface QueryShape {
  readonly aggregator: AggregatorSpec;
  readonly sampling: Duration;
  readonly samplingMs: number;
}

/** A roll-up that can answer the query's ranges within its completed periods. */
interface Candidate {
  readonly task: string;
  readonly metric: string;
  readonly samplingMs: number;
  readonly coveredFromMs: number;
  /** The end (exclusive) of its completed periods. */
  readonly completedThroughMs: number;
}

/** The first roll-up of `kind` that answers the query and has completed periods; why none does goes to `reasons`. */
async function findRollup(
  tasks: readonly StoredTask[],
  statusOf: (stored: StoredTask) => Promise<TaskStatus>,
  query: MetricQuery,
  shape: QueryShape,
  kind: RollupKind,
  reasons: string[],
): Promise<Candidate | undefined> {
  for (const stored of tasks) {
    const task = stored.task;
    if (task === undefined) continue;
    for (const rollup of task.rollups) {
      for (const candidate of rollup.queries) {
        const fit = fitOf(candidate, rollup, query, shape, kind);
        if (typeof fit === 'string') {
          if (candidate.metric === query.metric) reasons.push(`${task.id}: ${fit}`);
          continue;
        }
        const status = await statusOf(stored);
        if (
          status.coveredFromMs === undefined ||
          status.completedThroughMs === undefined ||
          status.completedThroughMs <= status.coveredFromMs
        ) {
          reasons.push(`${task.id}: it has completed no period yet`);
          continue;
        }
        return {
          task: task.id,
          metric: rollup.saveAs,
          samplingMs: fit,
          coveredFromMs: status.coveredFromMs,
          completedThroughMs: status.completedThroughMs,
        };
      }
    }
  }
  return undefined;
}

/** The query's one aggregator and its sampling, or why no roll-up can answer it. */
function queryShape(query: MetricQuery): QueryShape | string {
  if (query.limit !== undefined && query.limit > 0) return 'the query has a limit';
  if (!isUtc(query.timeZone)) return 'the query is not in UTC';
  if (query.aggregators.length !== 1)
    return 'only a query of one aggregator (sum, count, min, max or avg) reads roll-ups';
  const aggregator = query.aggregators[0]!;
  if (FROM_ROLLUPS[aggregator.name] === undefined)
    return `${aggregator.name} is not read from roll-ups (sum, count, min, max and avg are)`;
  if (query.groupBy.some((g) => g.name !== 'tag')) return 'only a tag group-by reads roll-ups';
  const sampling = alignedSampling(aggregator, true);
  if (sampling === undefined) return "the aggregator's sampling is not a fixed length aligned to it";
  const p = aggregator.params;
  if (query.order === 'desc' && p['align_start_time'] !== true && p['align_end_time'] !== true) {
    return "a descending query puts each range's point at its last raw point, which roll-ups do not keep (align_start_time or align_end_time would)";
  }
  return { aggregator, ...sampling };
}

/** The roll-up range's length in ms when `candidate` (a roll-up's query) can answer the query, or why it cannot. */
function fitOf(
  candidate: MetricQuery,
  rollup: Rollup,
  query: MetricQuery,
  shape: QueryShape,
  kind: RollupKind,
): number | string {
  if (candidate.metric !== query.metric) return 'another metric';
  if (canonicalTags(candidate.tags) !== canonicalTags(query.tags)) return 'another tag filter';
  if (canonicalGroupBy(candidate.groupBy) !== canonicalGroupBy(query.groupBy)) return 'another group-by';
  if (!isUtc(candidate.timeZone) || (rollup.timeZone !== undefined && !isUtc(rollup.timeZone))) return 'not in UTC';
  if (candidate.limit !== undefined && candidate.limit > 0) return 'its query has a limit';
  const own = candidate.aggregators.filter((a) => a.name !== 'save_as');
  if (own.length !== 1 || own[0]!.name !== kind) return `its aggregator is not ${kind} alone`;
  const samplingMs = alignedSampling(own[0]!, false)?.samplingMs;
  if (samplingMs === undefined || DAY_MS % samplingMs !== 0)
    return "its sampling is not a fixed length that divides a day, aligned, with its points at each range's first point";
  if (shape.samplingMs % samplingMs !== 0) return `the query's sampling is not a multiple of its ${samplingMs} ms`;
  return samplingMs;
}

/**
 * The sampling of a range aggregator aligned to its sampling with nothing of its own that moves its ranges;
 * `mayMoveTimestamps` allows align_start_time and align_end_time (the query's own, applied to both answers alike).
 */
function alignedSampling(
  aggregator: AggregatorSpec,
  mayMoveTimestamps: boolean,
): { sampling: Duration; samplingMs: number } | undefined {
  const p = aggregator.params;
  const known = new Set([
    'sampling',
    'align_sampling',
    ...(mayMoveTimestamps ? ['align_start_time', 'align_end_time'] : []),
  ]);
  if (Object.keys(p).some((key) => !known.has(key) && p[key] !== undefined && p[key] !== null && p[key] !== false))
    return undefined;
  if (p['align_sampling'] === false) return undefined;
  let sampling: Duration;
  try {
    sampling = readDuration(p['sampling'] ?? { value: 1, unit: 'milliseconds' }, 'sampling');
  } catch {
    return undefined;
  }
  const samplingMs = fixedLengthMs(sampling, resolveZone('UTC')!);
  return samplingMs === undefined ? undefined : { sampling, samplingMs };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function isUtc(zone: string): boolean {
  return zone === '' || zone === 'UTC' || zone === 'Etc/UTC';
}

function canonicalTags(tags: TagFilter): string {
  return JSON.stringify(
    [...tags]
      .map((c) => ({
        tag: c.tag,
        in: c.in ? [...c.in].sort() : null,
        regex: c.regex ?? null,
        notIn: c.notIn ? [...c.notIn].sort() : null,
      }))
      .sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0)),
  );
}

function canonicalGroupBy(groupBy: readonly GroupBySpec[]): string {
  return JSON.stringify(
    groupBy.map((g) =>
      g.name === 'tag'
        ? { name: 'tag', tags: [...((g.params['tags'] as string[] | undefined) ?? [])].sort() }
        : { name: g.name, params: g.params },
    ),
  );
}
