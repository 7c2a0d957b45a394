/**
 * A query rewrite through roll-ups (GraphQL's `useRollups`): the query planned (plan-with-rollups.ts), each part of
 * its range read through the one engine, from a roll-up's metric or from the raw data, and recorded with the rewrite
 * in the request's statistics; an avg's sums divided by its counts; the parts' answers joined into the raw query's.
 */
import type { RequestScope } from '../app/request-scope.js';
import type { GroupByResult } from '../engine/group-by/group-by.js';
import type { GroupOutput, QueryOutput } from '../engine/output.js';
import { PointList } from '../engine/point-list.js';
import { compareStrings } from '../engine/points.js';
import type { MetricQuery } from '../model/query.js';
import { planWithRollups, SAVED_FROM, type PlannedPart } from './plan-with-rollups.js';
import type { RollupService } from './rollup-service.js';

/** Answers `query` as the plan of `planWithRollups` says, each read recorded in the request's statistics. */
export async function queryThroughRollups(
  ctx: RequestScope,
  rollups: Pick<RollupService, 'list' | 'status'>,
  query: MetricQuery,
  label: string,
): Promise<QueryOutput> {
  const parts = await planWithRollups(ctx, rollups, query);
  const outputs = await Promise.all(parts.map((part) => runPart(ctx, query, part, label)));
  return outputs.length === 1 ? outputs[0]! : joinParts(query, outputs);
}

/** Runs a part's reads; an avg part divides its sums by its counts, or reads raw if the two do not line up. */
async function runPart(ctx: RequestScope, query: MetricQuery, part: PlannedPart, label: string): Promise<QueryOutput> {
  if ('read' in part) {
    const output = await ctx.runQuery(part.read.query, label, part.read.use);
    return part.read.use.metric === undefined ? output : answeringFor(query, output);
  }
  const [sums, counts] = await Promise.all([
    ctx.runQuery(part.sums.query, label, part.sums.use),
    ctx.runQuery(part.counts.query, label, part.counts.use),
  ]);
  const averages = divide(sums, counts);
  if (averages !== undefined) return answeringFor(query, averages);
  const reason = `${part.sums.use.task}: its sums and ${part.counts.use.task}'s counts are not at the same groups and timestamps`;
  return ctx.runQuery(part.raw, label, { reason });
}

/** Each group's sums divided by its counts (as `avg` answers, a double), or undefined where the two do not match. */
function divide(sums: QueryOutput, counts: QueryOutput): QueryOutput | undefined {
  const countsOf = new Map(counts.groups.map((g) => [groupKey(g.groupBy), g.points]));
  const groups: GroupOutput[] = [];
  for (const group of sums.groups) {
    const n = countsOf.get(groupKey(group.groupBy));
    countsOf.delete(groupKey(group.groupBy));
    const s = group.points;
    if (n === undefined || n.length !== s.length) return undefined;
    const points = new PointList();
    for (let i = 0; i < s.length; i++) {
      if (n.timestamps[i] !== s.timestamps[i] || typeof s.values[i] !== 'number' || typeof n.values[i] !== 'number')
        return undefined;
      points.push(s.timestamps[i]!, 'double', (s.values[i] as number) / (n.values[i] as number));
    }
    groups.push({ ...group, points });
  }
  if ([...countsOf.values()].some((points) => points.length > 0)) return undefined;
  return {
    ...sums,
    groups,
    warnings: [...sums.warnings, ...counts.warnings],
    ...((sums.truncated ?? counts.truncated) ? { truncated: sums.truncated ?? counts.truncated! } : {}),
  };
}

/**
 * A roll-up's answer as the answer for the queried metric: its groups named so, without the `saved_from` tag, and a
 * count's sums of counts as longs, as `count` answers.
 */
function answeringFor(query: MetricQuery, output: QueryOutput): QueryOutput {
  const counts = query.aggregators[0]!.name === 'count';
  return {
    ...output,
    metric: query.metric,
    groups: output.groups.map((group) => {
      const tags = { ...group.tags };
      if (tags[SAVED_FROM]?.length === 1 && tags[SAVED_FROM][0] === query.metric) delete tags[SAVED_FROM];
      return { ...group, name: query.metric, tags, points: counts ? asLongs(group.points) : group.points };
    }),
  };
}

/** A copy of `points` (which an identical query of another request may share) as longs. */
function asLongs(points: PointList): PointList {
  const longs = new PointList();
  for (let i = 0; i < points.length; i++) longs.push(points.timestamps[i]!, 'long', points.values[i]!);
  return longs;
}

/** The parts' answers as one: each group's points in the query's order, tags and sample sizes added up. */
function joinParts(query: MetricQuery, outputs: readonly QueryOutput[]): QueryOutput {
  const byKey = new Map<
    string,
    { group: GroupOutput; tags: Map<string, Set<string>>; sampleSize: number; points: PointList }
  >();
  const inOrder = query.order === 'desc' ? [...outputs].reverse() : outputs;
  for (const output of inOrder) {
    for (const group of output.groups) {
      const key = groupKey(group.groupBy);
      let joined = byKey.get(key);
      if (joined === undefined)
        byKey.set(key, (joined = { group, tags: new Map(), sampleSize: 0, points: new PointList() }));
      for (const [tag, values] of Object.entries(group.tags)) {
        const set = joined.tags.get(tag) ?? new Set<string>();
        for (const value of values) set.add(value);
        joined.tags.set(tag, set);
      }
      joined.sampleSize += group.sampleSize;
      const p = group.points;
      for (let i = 0; i < p.length; i++) joined.points.push(p.timestamps[i]!, p.kinds[i]!, p.values[i]!);
    }
  }
  const groups = [...byKey.values()]
    .sort((a, b) => compareGroups(a.group.groupBy, b.group.groupBy))
    .map(({ group, tags, sampleSize, points }) => ({
      ...group,
      tags: Object.fromEntries(
        [...tags.keys()].sort(compareStrings).map((tag) => [tag, [...tags.get(tag)!].sort(compareStrings)]),
      ),
      sampleSize,
      points,
    }));
  const truncated = outputs.find((o) => o.truncated !== undefined)?.truncated;
  return {
    metric: query.metric,
    ...(query.alias !== undefined ? { alias: query.alias } : {}),
    sampleSize: outputs.reduce((n, o) => n + o.sampleSize, 0),
    groups,
    warnings: outputs.flatMap((o) => o.warnings),
    ...(truncated ? { truncated } : {}),
  };
}

function groupKey(groupBy: readonly GroupByResult[]): string {
  return JSON.stringify(groupBy);
}

/** KairosDB's order of tag groups: by type, then by the concatenated names and values of their tags. */
function compareGroups(a: readonly GroupByResult[], b: readonly GroupByResult[]): number {
  const parts = (groupBy: readonly GroupByResult[]) => {
    let type = '';
    let tags = '';
    for (const g of groupBy) {
      if (g.name === 'type') type = g.type;
      else if (g.name === 'tag') tags = g.tags.map((name) => name + (g.group[name] ?? '')).join('');
    }
    return { type, tags };
  };
  const x = parts(a);
  const y = parts(b);
  return compareStrings(x.type, y.type) || compareStrings(x.tags, y.tags) || compareStrings(groupKey(a), groupKey(b));
}
