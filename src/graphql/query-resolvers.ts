/**
 * The Query root's resolvers: sources, metric names, tag names and values, series keys (and their pages), points,
 * aggregated series, rows, PromQL's series, metadata and roll-up tasks. No resolver reaches a source's tables.
 */
import { metricNames } from '../app/metric-names.js';
import { metadataFor } from '../app/metadata.js';
import type { QueryResolvers, TagMatch } from '../generated/graphql.js';
import type { Partition } from '../model/series.js';
import type { TimeInput } from '../model/time.js';
import { InputError } from '../model/errors.js';
import { cursorArg, DEFAULT_METADATA_WINDOW_MS, page, pageSizeArg, positiveIntArg, rangeArgs } from './arguments.js';
import type { GraphQLContext } from './context.js';
import { seriesRows } from './point-answers.js';
import { promqlSeries } from './promql-answers.js';
import {
  aggregatedSeries,
  rawSeries,
  responsePath,
  seriesKeyId,
  seriesOf,
  uniqueSeriesKeys,
} from './series-answers.js';

const MAX_METRIC_NAMES = 100_000;

export const queryResolvers: QueryResolvers<GraphQLContext> = {
  sources(_, __, ctx) {
    return ctx.sources.all.map((source) => {
      const catalogue = source.capabilities.catalogue?.status();
      return {
        name: source.name,
        layout: source.layout,
        writable: source.writable,
        primary: source === ctx.sources.primary,
        catalogue:
          catalogue === undefined ? null : { ...catalogue, lastPassEndedAt: catalogue.lastPassEndedMs ?? null },
      };
    });
  },
  async metricNames(_, { prefix, limit, source: name }, ctx) {
    const source = ctx.source(name);
    const max = positiveIntArg(limit, 'limit', MAX_METRIC_NAMES);
    return metricNames(source, prefix ?? '', 'prefix', max === 0 ? undefined : max);
  },
  async metricNamesPage(_, { prefix, first, after, source: name }, ctx) {
    const source = ctx.source(name);
    const size = pageSizeArg(first);
    const start = cursorArg(after);
    // Sources list names from the start of a prefix only, so a later page reads the names before its cursor too.
    return page(await metricNames(source, prefix ?? '', 'prefix'), (name) => name, start, size);
  },
  async tagNames(_, args, ctx) {
    return sortedUnique((await metadataSeries(ctx, args)).flatMap((key) => Object.keys(key.tags)));
  },
  tagValues: (_, args, ctx) => tagValues(ctx, args),
  async tagValuesPage(_, args, ctx) {
    const size = pageSizeArg(args.first);
    const start = cursorArg(args.after);
    return page(await tagValues(ctx, args), (value) => value, start, size);
  },
  async seriesKeys(_, args, ctx) {
    return uniqueSeriesKeys(await metadataSeries(ctx, args));
  },
  async seriesKeysPage(_, args, ctx) {
    const size = pageSizeArg(args.first);
    const start = cursorArg(args.after);
    return page(uniqueSeriesKeys(await metadataSeries(ctx, args)), seriesKeyId, start, size);
  },
  rawSeries: (_, args, ctx, info) => rawSeries(ctx, args, responsePath(info.path)),
  points: (_, args, ctx, info) => rawSeries(ctx, args, responsePath(info.path)),
  async series(_, args, ctx, info) {
    return aggregatedSeries(ctx, args, responsePath(info.path));
  },
  promql: (_, args, ctx, info) => promqlSeries(ctx, args, responsePath(info.path)),
  metadata(_, { service, source: name }, ctx) {
    const source = ctx.source(name);
    metadataFor(source, { service }, false);
    return { service, source };
  },
  async rows(_, args, ctx, info) {
    const series = await aggregatedSeries(ctx, args, responsePath(info.path));
    // Rendered whole (point-answers.ts); the execution schema types the list as one value.
    return seriesRows(series, info, ctx) as never;
  },
  rollups: (_, __, ctx) => ctx.rollups.list(ctx),
};

function sortedUnique(values: string[]): string[] {
  return [...new Set(values)].sort();
}

/** What the metadata fields (tag names and values, series keys) share: a metric's series in a window, filtered. */
interface MetadataArgs {
  readonly source?: string | null;
  readonly metric: string;
  readonly from?: TimeInput | null;
  readonly to?: TimeInput | null;
  readonly where?: readonly TagMatch[] | null;
}

/** The series the metadata fields list: the last 24 hours unless `from`/`to` say otherwise. */
function metadataSeries(ctx: GraphQLContext, args: MetadataArgs): Promise<Partition[]> {
  const range = rangeArgs(ctx, args.from, args.to, DEFAULT_METADATA_WINDOW_MS);
  return seriesOf(ctx, ctx.source(args.source), args.metric, range, args.where);
}

/** The distinct values of `tag` among those series, sorted. */
async function tagValues(ctx: GraphQLContext, args: MetadataArgs & { readonly tag: string }): Promise<string[]> {
  if (args.tag.length === 0) throw new InputError('tag', args.tag, 'must not be empty');
  const keys = await metadataSeries(ctx, args);
  return sortedUnique(keys.flatMap((key) => (Object.hasOwn(key.tags, args.tag) ? [key.tags[args.tag]!] : [])));
}
