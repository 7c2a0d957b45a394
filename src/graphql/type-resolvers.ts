/**
 * The resolvers of the schema's object types: series and their points (rendered whole: point-answers.ts), rows,
 * series keys, group keys, live updates, metadata services and roll-up tasks.
 */
import type { GraphQLResolveInfo } from 'graphql';
import { metadataFor } from '../app/metadata.js';
import type { PointList } from '../engine/point-list.js';
import type { Resolvers } from '../generated/graphql.js';
import type { GraphQLContext } from './context.js';
import type { SeriesModel } from './models.js';
import { pointColumn, pointRows } from './point-answers.js';
import { GRAPHQL_TYPE } from './point-cells.js';

/** The schema's object types, each with its resolvers. */
type ObjectTypes =
  | 'RollupTask'
  | 'Rollup'
  | 'RollupStatus'
  | 'RollupRun'
  | 'RollupSkip'
  | 'MetadataService'
  | 'LiveSeriesUpdate'
  | 'LiveSeriesChange'
  | 'SeriesKey'
  | 'Series'
  | 'PointColumns'
  | 'GroupKey'
  | 'Row';

export const typeResolvers: Pick<Resolvers, ObjectTypes> = {
  RollupTask: {
    id: (t) => t.id,
    name: (t) => t.task?.name ?? null,
    executionInterval: (t) => t.task?.executionInterval ?? null,
    rollups: (t) => [...(t.task?.rollups ?? [])],
    json: (t) => t.json,
    lastModifiedMs: (t) => t.lastModifiedMs,
    error: (t) => t.error ?? null,
    status: (t, _, ctx) => ctx.rollups.status(ctx, t),
  },
  Rollup: {
    saveAs: (r) => r.saveAs,
    metrics: (r) => r.queries.map((q) => q.metric),
  },
  RollupStatus: {
    completedThrough: (s) => s.completedThroughMs ?? null,
    pendingPeriods: (s) => s.pendingPeriods,
    failures: (s) => s.failures,
    retryAt: (s) => s.retryAtMs ?? null,
    lastRun: (s) => s.lastRun ?? null,
    lastSuccess: (s) => s.lastSuccess ?? null,
    skipped: (s) => s.skipped ?? null,
    heldBy: (s) => s.heldBy?.owner ?? null,
  },
  RollupRun: {
    periodStart: (r) => r.periodStartMs,
    periodEnd: (r) => r.periodEndMs,
    started: (r) => r.startedMs,
    finished: (r) => r.finishedMs,
    durationMs: (r) => r.durationMs,
    pointsWritten: (r) => r.pointsWritten,
    error: (r) => r.error ?? null,
    gateway: (r) => r.owner,
  },
  RollupSkip: {
    from: (s) => s.fromMs,
    to: (s) => s.toMs,
    periods: (s) => s.periods,
  },

  MetadataService: {
    service: (m) => m.service,
    serviceKeys: (m) => metadataFor(m.source, m, false).serviceKeys(m.service),
    keys: (m, { serviceKey, startsWith }) =>
      metadataFor(m.source, { service: m.service, serviceKey }, false).keys(m.service, serviceKey, startsWith ?? ''),
    async value(m, { serviceKey, key }) {
      return (
        (await metadataFor(m.source, { service: m.service, serviceKey, key }, false).value(
          m.service,
          serviceKey,
          key,
        )) ?? null
      );
    },
  },

  LiveSeriesUpdate: {
    kind: (update) => update.kind,
    source: (update) => update.source,
    from: (update) => update.startMs,
    to: (update) => update.endMs,
    changes: (update) => [...update.changes],
    removed: (update) => [...update.removed],
  },

  LiveSeriesChange: {
    key: (change) => change.key,
    from: (change) => change.fromMs,
    series: (change) => ({ ...change.series, points: change.points }),
  },

  SeriesKey: {
    metric: (key) => key.metric,
    tags: (key) => Object.entries(key.tags).map(([name, value]) => ({ name, value })),
    tag: (key, { name }) => (Object.hasOwn(key.tags, name) ? key.tags[name]! : null),
    type: (key) => GRAPHQL_TYPE[key.kind],
  },

  Series: {
    name: (series) => series.name,
    metric: (series) => series.metric,
    tags: (series) => Object.entries(series.tags).map(([name, values]) => ({ name, values: [...values] })),
    tag: (series, { name }) => singleValue(series, name),
    varyingTags: (series) => Object.keys(series.tags).filter((name) => series.tags[name]!.length > 1),
    group: (series) => [...series.groupBy],
    sampleSize: (series) => series.sampleSize,
    // Rendered whole (point-answers.ts); the execution schema types the list as one value.
    points: (series, _, __, info) => pointRows(series.points, info) as never,
    columns: (series) => series.points,
  },

  PointColumns: {
    time: column,
    epochMs: column,
    value: column,
    long: column,
    text: column,
    imaginary: column,
    type: column,
  },

  GroupKey: {
    kind: (g) => GROUP_KIND[g.name],
    tags: (g) => (g.name === 'tag' ? Object.entries(g.group).map(([name, value]) => ({ name, value })) : null),
    groupNumber: (g) => (g.name === 'time' || g.name === 'value' ? g.group.group_number : null),
    binNumber: (g) => (g.name === 'bin' ? g.group.bin_number : null),
    valueType: (g) => (g.name === 'type' ? g.type : null),
  },

  // The fields of a row's series, completed once per series (point-answers.ts `seriesRows`); its point's fields are
  // Point's.
  Row: {
    name: (r) => r.series.name,
    metric: (r) => r.series.metric,
    tags: (r) =>
      Object.entries(r.series.tags).flatMap(([name, values]) =>
        values.length === 1 ? [{ name, value: values[0]! }] : [],
      ),
    tag: (r, { name }) => singleValue(r.series, name),
    group: (r) => [...r.series.groupBy],
  },
};

function singleValue(series: SeriesModel, name: string): string | null {
  const values = Object.hasOwn(series.tags, name) ? series.tags[name]! : [];
  return values.length === 1 ? values[0]! : null;
}

const GROUP_KIND = { tag: 'TAG', time: 'TIME', value: 'VALUE', bin: 'BIN', type: 'TYPE' } as const;

/** The columns of `PointColumns`, rendered whole (point-answers.ts). */
function column(points: PointList, _: unknown, __: GraphQLContext, info: GraphQLResolveInfo): never {
  // Typed as one value in the execution schema, as `Series.points` is; the generated types, made from the contract,
  // know each column's scalar instead of the serialized values it holds.
  return pointColumn(points, info) as never;
}
