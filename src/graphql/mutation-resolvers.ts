/**
 * The Mutation root's resolvers: writes (validated whole, through the app's write), deletes, metadata and roll-up
 * tasks. Their answers are scoped field by field (field-scopes.ts).
 */
import { deletePoints } from '../app/delete-points.js';
import { metadataFor } from '../app/metadata.js';
import { writeBatch } from '../app/write.js';
import type { MutationResolvers, SeriesPointsInput, ValueType as GraphQLValueType } from '../generated/graphql.js';
import { dict } from '../lib/dict.js';
import { InputError } from '../model/errors.js';
import type { StoredTask } from '../rollups/task-store.js';
import { validateMetricName, validateWrite, type SeriesFields, type SeriesInput } from '../sources/write-validation.js';
import type { ValueType } from '../model/write-batch.js';
import { rangeArgs, timeArg, wherePredicate } from './arguments.js';
import type { GraphQLContext } from './context.js';

export const mutationResolvers: MutationResolvers<GraphQLContext> = {
  async addPoints(_, { series, source: name }, ctx) {
    const source = ctx.source(name);
    const batch = validateWrite(
      series.map(seriesInput),
      'series',
      { maxPoints: ctx.settings.maxWritePoints, keys: source.limits },
      (value, fields, index) => timeArg(ctx, value as string | number, fields.point(index, 'timestamp')),
    );
    await writeBatch(ctx, source, batch);
    return { series: batch.series.length, points: batch.series.reduce((n, s) => n + s.timestamps.length, 0) };
  },
  async setMetadata(_, { service, serviceKey, key, value, source }, ctx) {
    const index = metadataFor(ctx.source(source), { service, serviceKey, key }, true);
    return { value, writtenMs: await index.set(service, serviceKey, key, value) };
  },
  async deleteMetadata(_, { service, serviceKey, key, source }, ctx) {
    await metadataFor(ctx.source(source), { service, serviceKey, key }, true).delete(service, serviceKey, key);
    return true;
  },
  async createRollup(_, { task }, ctx) {
    return storedRollup(ctx, (await ctx.rollups.create(ctx, task)).id);
  },
  async updateRollup(_, { id, task }, ctx) {
    const updated = await ctx.rollups.update(ctx, id, task);
    return updated === undefined ? null : storedRollup(ctx, updated.id);
  },
  deleteRollup: (_, { id }, ctx) => ctx.rollups.delete(ctx, id),
  async deletePoints(_, args, ctx) {
    const source = ctx.source(args.source);
    const range = rangeArgs(ctx, args.from, args.to);
    const metric = validateMetricName(args.metric, 'metric', source.limits);
    const matches = wherePredicate(args.where);
    const { series, partitionsDeleted, rangesDeleted, warnings } = await deletePoints(
      source,
      ctx.loaders,
      metric,
      range,
      matches,
    );
    for (const warning of warnings) ctx.log.warn(warning);
    return { series, partitionsDeleted, rangesDeleted };
  },
};

const API_TYPE: Record<GraphQLValueType, ValueType | undefined> = {
  LONG: 'long',
  DOUBLE: 'double',
  STRING: 'string',
  COMPLEX: undefined,
};

function seriesInput(series: SeriesPointsInput, i: number): SeriesInput {
  const path = `series[${i}]`;
  const tags = dict<string>();
  series.tags.forEach((tag, k) => {
    if (Object.hasOwn(tags, tag.name)) throw new InputError(`${path}.tags[${k}].name`, tag.name, 'is given twice');
    tags[tag.name] = tag.value;
  });
  const gqlType = series.type ?? 'DOUBLE';
  const type = API_TYPE[gqlType];
  if (type === undefined)
    throw new InputError(`${path}.type`, gqlType, 'cannot be written: KairosDB ingests LONG, DOUBLE and STRING');
  return {
    metric: series.metric,
    tags,
    type,
    ...(series.ttl != null ? { ttlSeconds: series.ttl } : {}),
    points: series.points.map((p) => ({ timestamp: p.time, value: p.value })),
    fields: seriesFields(series, path),
  };
}

/**
 * A series' fields as SeriesPointsInput names them: tags are a list of {name, value} entries (an entry's value is
 * `tags[1].value`, and errors about the tags as a whole show the list), a point's time is `time`.
 */
function seriesFields(series: SeriesPointsInput, path: string): SeriesFields {
  return {
    field(name, key) {
      if (name !== 'tags' || key === undefined) return `${path}.${name}`;
      const k = series.tags.findIndex((entry) => entry.name === key);
      return `${path}.tags[${k}].value`;
    },
    point: (index, name) => `${path}.points[${index}].${name === 'timestamp' ? 'time' : 'value'}`,
    tagsSent: series.tags,
  };
}

/** A task as stored, just after this request wrote it. */
async function storedRollup(ctx: GraphQLContext, id: string): Promise<StoredTask> {
  const stored = await ctx.rollups.get(ctx, id);
  if (stored === undefined) throw new Error(`the roll-up task ${id} was deleted as it was written`);
  return stored;
}
