/**
 * The `liveSeries` subscription: `series` as a shared live computation (src/sharing/live-queries.ts). Each run is the
 * `series` query over the window up to now, in a request context of its own (budgets, admission turn, results cache,
 * statistics); the window starts where the computation's first subscriber asked and moves forward once it is twice
 * its length.
 */
import type { LiveAnswer, LiveUpdate } from '../sharing/live-update.js';
import { InputError } from '../model/errors.js';
import type { SubscriptionLiveSeriesArgs } from '../generated/graphql.js';
import type { MetricQuery } from '../model/query.js';
import type { GraphQLContext } from './context.js';
import { requestStatistics, type RequestStatistics } from '../app/statistics.js';
import { metricScope } from '../sources/metric-scope.js';
import { timeArg } from './arguments.js';
import type { LiveUpdateModel, SeriesModel } from './models.js';
import { answerSeries, seriesQuery } from './series-answers.js';

/** What the subscription's stream carries to `resolve`: an update, or the error that ended it. */
export type LivePayload =
  | { readonly update: LiveUpdateModel; readonly statistics: RequestStatistics }
  | { readonly error: unknown };

export const liveSeriesResolver = {
  subscribe(_: unknown, args: SubscriptionLiveSeriesArgs, ctx: GraphQLContext): AsyncIterable<LivePayload> {
    if (ctx.live === undefined) throw new Error('liveSeries needs the gateway (its live queries)');
    const live = ctx.live;
    // Read and checked now, so bad arguments fail the subscription at once, as `series` fails.
    const first = seriesQuery(ctx, args);
    // A live query runs again on every write and poll: saving its answer each time is no one's intent.
    const saving = first.aggregators.findIndex((aggregator) => aggregator.name === 'save_as');
    if (saving >= 0)
      throw new InputError(
        `aggregators[${saving}].saveAs`,
        args.aggregators?.[saving]?.saveAs,
        'is not taken by liveSeries, which runs again on every write and poll: save with `series`',
      );
    const source = first.source!;
    const query = new LiveSeriesQuery(args, first, () => live.open());
    const updates = live.queries.subscribe<SeriesModel>(
      {
        key: JSON.stringify([source, args]),
        scopes: [metricScope(source, args.metric)],
        run: () => query.run(),
        seriesKey: (series) => JSON.stringify([series.name, series.groupBy]),
      },
      ctx.client,
    );
    return payloads(updates, source);
  },
  resolve: resolveLiveUpdate,
};

/**
 * An update as the subscription's field answers it; an error ends it. The run's statistics reach `extensions` from the
 * payload (use-shared-events.ts).
 */
export function resolveLiveUpdate(payload: LivePayload): LiveUpdateModel {
  if ('error' in payload) throw payload.error;
  return payload.update;
}

/** One payload per update, so subscribers handed the same update share its execution (use-shared-events.ts). */
const payloadOf = new WeakMap<LiveUpdate<SeriesModel>, LivePayload>();

class LiveSeriesQuery {
  private startMs: number;
  private readonly lengthMs: number;

  constructor(
    private readonly args: SubscriptionLiveSeriesArgs,
    private readonly first: MetricQuery,
    private readonly newContext: () => GraphQLContext,
  ) {
    this.startMs = first.range.startMs;
    this.lengthMs = first.range.endMs - first.range.startMs;
  }

  async run(): Promise<LiveAnswer<SeriesModel>> {
    const ctx = this.newContext();
    try {
      const started = performance.now();
      const endMs = this.args.to == null ? ctx.nowMs : timeArg(ctx, this.args.to, 'to');
      // A window that follows now would grow without end: it moves forward by its length, and clients start afresh.
      const reanchored = this.args.to == null && this.lengthMs > 0 && endMs - this.startMs > 2 * this.lengthMs;
      if (reanchored) this.startMs = endMs - this.lengthMs;
      const startMs = Math.min(this.startMs, endMs);
      const series = await answerSeries(ctx, this.args, { ...this.first, range: { startMs, endMs } }, 'liveSeries');
      return { series, startMs, endMs, statistics: requestStatistics(ctx, performance.now() - started), reanchored };
    } finally {
      ctx.dispose();
    }
  }
}

/**
 * The updates as the subscription's payloads, an error as a last payload (so it reaches the client as a GraphQL error
 * with its code). Not an async generator: one waiting for the next update could not be returned when the client leaves.
 */
export function payloads(
  updates: AsyncIterableIterator<LiveUpdate<SeriesModel>>,
  source: string,
): AsyncIterableIterator<LivePayload> {
  let failed = false;
  const it: AsyncIterableIterator<LivePayload> = {
    async next() {
      if (failed) return { done: true, value: undefined };
      try {
        const next = await updates.next();
        if (next.done) return { done: true, value: undefined };
        let payload = payloadOf.get(next.value);
        if (payload === undefined) {
          const update = { ...next.value, source };
          payloadOf.set(next.value, (payload = { update, statistics: next.value.statistics as RequestStatistics }));
        }
        return { done: false, value: payload };
      } catch (error) {
        failed = true;
        return { done: false, value: { error } };
      }
    },
    async return() {
      await updates.return?.();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => it,
  };
  return it;
}
