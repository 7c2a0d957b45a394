/**
 * The `livePromql` subscription: `promql`'s range query as a shared live computation (src/sharing/live-queries.ts),
 * as `liveSeries` is `series`'s. Each run evaluates the expression over the window up to now in a request context of
 * its own (budgets, PROMQL_MAX_SAMPLES, admission turn, statistics); writes through the gateway to a metric a selector
 * names exactly run it at once, and polls catch the rest (metrics named by a regular expression, other writers).
 */
import { requestStatistics } from '../app/statistics.js';
import type { Expr } from '../engine/promql/ast.js';
import { METRIC_NAME } from '../engine/promql/labels.js';
import { parseExpr } from '../engine/promql/parser.js';
import { PromqlError, parseErrorMessage } from '../engine/promql/promql-error.js';
import { MAX_POINTS_PER_SERIES } from '../app/promql-query.js';
import type { SubscriptionLivePromqlArgs } from '../generated/graphql.js';
import { InputError } from '../model/errors.js';
import type { LiveAnswer } from '../sharing/live-update.js';
import { metricScope } from '../sources/metric-scope.js';
import { timeArg } from './arguments.js';
import type { GraphQLContext } from './context.js';
import { type LivePayload, payloads, resolveLiveUpdate } from './live-series.js';
import type { SeriesModel } from './models.js';
import { promqlRequest, promqlSeries } from './promql-answers.js';

export const livePromqlResolver = {
  subscribe(_: unknown, args: SubscriptionLivePromqlArgs, ctx: GraphQLContext): AsyncIterable<LivePayload> {
    if (ctx.live === undefined) throw new Error('livePromql needs the gateway (its live queries)');
    const live = ctx.live;
    // Read and checked now, so bad arguments fail the subscription at once, as `promql` fails.
    const source = ctx.source(args.source).name;
    const first = promqlRequest(ctx, args);
    if (!('stepMs' in first)) throw new Error('livePromql: a range query was expected');
    const query = new LivePromqlQuery(args, first, () => live.open());
    const updates = live.queries.subscribe<SeriesModel>(
      {
        key: JSON.stringify(['promql', source, args]),
        scopes: namedMetrics(parsed(args.expression)).map((metric) => metricScope(source, metric)),
        run: () => query.run(),
        // A series' identity is its labels.
        seriesKey: (series) => JSON.stringify([series.metric, series.tags]),
      },
      ctx.client,
    );
    return payloads(updates, source);
  },
  resolve: resolveLiveUpdate,
};

class LivePromqlQuery {
  private startMs: number;
  private readonly lengthMs: number;
  private readonly stepMs: number;

  constructor(
    private readonly args: SubscriptionLivePromqlArgs,
    first: { readonly startMs: number; readonly endMs: number; readonly stepMs: number },
    private readonly newContext: () => GraphQLContext,
  ) {
    this.startMs = first.startMs;
    this.lengthMs = first.endMs - first.startMs;
    this.stepMs = first.stepMs;
  }

  async run(): Promise<LiveAnswer<SeriesModel>> {
    const ctx = this.newContext();
    try {
      const started = performance.now();
      const following = this.args.to == null;
      const endMs = following ? ctx.nowMs : timeArg(ctx, this.args.to!, 'to');
      const moved = following ? movedStart(this.startMs, this.lengthMs, this.stepMs, endMs) : this.startMs;
      const reanchored = moved !== this.startMs;
      this.startMs = moved;
      const startMs = Math.min(this.startMs, endMs);
      const series = await promqlSeries(ctx, { ...this.args, from: startMs, to: endMs }, 'livePromql');
      return { series, startMs, endMs, statistics: requestStatistics(ctx, performance.now() - started), reanchored };
    } finally {
      ctx.dispose();
    }
  }
}

/**
 * Where a window that follows now starts when it ends at `endMs`: where it started, until it has grown to twice its
 * length (`lengthMs`) or past Prometheus's 11,000 steps, and then forward by whole steps to its length again, so the
 * steps it keeps are evaluated at the same times.
 */
export function movedStart(startMs: number, lengthMs: number, stepMs: number, endMs: number): number {
  const grown = endMs - startMs;
  if (lengthMs <= 0 || (grown <= 2 * lengthMs && grown / stepMs <= MAX_POINTS_PER_SERIES)) return startMs;
  return startMs + Math.floor((grown - lengthMs) / stepMs) * stepMs;
}

/** The expression's tree; Prometheus's refusal is bad input on `expression`, as `promql` answers it. */
function parsed(expression: string): Expr {
  try {
    return parseExpr(expression);
  } catch (error) {
    if (!(error instanceof PromqlError)) throw error;
    throw new InputError('expression', expression, `is refused: ${parseErrorMessage(expression, error)}`);
  }
}

/** The metrics the expression's selectors name with `=` on `__name__`: the writes that change its answer at once. */
function namedMetrics(expr: Expr): string[] {
  const names = new Set<string>();
  const visit = (e: Expr): void => {
    switch (e.kind) {
      case 'vector':
      case 'matrix':
        for (const m of (e.kind === 'vector' ? e : e.selector).matchers)
          if (m.name === METRIC_NAME && m.op === '=') names.add(m.value);
        return;
      case 'subquery':
      case 'paren':
      case 'unary':
        return visit(e.expr);
      case 'aggregate':
        visit(e.expr);
        if (e.param !== undefined) visit(e.param);
        return;
      case 'call':
        return e.args.forEach(visit);
      case 'binary':
        visit(e.lhs);
        return visit(e.rhs);
      default:
        return;
    }
  };
  visit(expr);
  return [...names];
}
