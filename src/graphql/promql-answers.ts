/**
 * The `promql` field: its arguments read into an instant or a range query, evaluated as the Prometheus API evaluates
 * it (src/app/promql-query.ts, the one read path), and its result answered as `Series`, so clients of `series` render
 * it. Prometheus's refusals of an expression are bad input on `expression`, with Prometheus's message.
 */
import { evaluatePromql, MAX_POINTS_PER_SERIES, type PromqlRequest } from '../app/promql-query.js';
import { PointList } from '../engine/point-list.js';
import { parseDuration } from '../engine/promql/duration.js';
import { METRIC_NAME, type Labels } from '../engine/promql/labels.js';
import type { QueryValue } from '../engine/promql/promql-engine.js';
import { PromqlError } from '../engine/promql/promql-error.js';
import type { QueryPromqlArgs } from '../generated/graphql.js';
import { InputError } from '../model/errors.js';
import { rangeArgs, timeArg } from './arguments.js';
import type { GraphQLContext } from './context.js';
import type { SeriesModel } from './models.js';
import { addNotes } from './use-answer-notes.js';

export async function promqlSeries(ctx: GraphQLContext, args: QueryPromqlArgs, path: string): Promise<SeriesModel[]> {
  const source = ctx.source(args.source);
  const request = promqlRequest(ctx, args);
  let answer: Awaited<ReturnType<typeof evaluatePromql>>;
  try {
    answer = await evaluatePromql(ctx, source, request, path);
  } catch (error) {
    if (!(error instanceof PromqlError)) throw error;
    // The expression is what the client must change, whether Prometheus refuses it as it reads it (bad_data) or as it
    // evaluates it over these series (execution: many-to-many matching, duplicate label sets).
    const reason = error.type === 'bad_data' ? 'is refused' : 'cannot be evaluated';
    throw new InputError('expression', args.expression, `${reason}: ${error.message}`);
  }
  addNotes(ctx, path, answer.warnings, answer.infos);
  const series = seriesOf(answer.result.value, answer.result.timeMs, args.name ?? undefined, args.expression);
  ctx.budget.addReturned(series.reduce((n, s) => n + s.points.length, 0));
  return series;
}

/** An instant query unless `from` is given; a range query needs its `step`, and takes no `time`. */
export function promqlRequest(ctx: GraphQLContext, args: QueryPromqlArgs): PromqlRequest {
  const { expression } = args;
  if (args.from === null || args.from === undefined) {
    if (args.to != null) throw new InputError('from', args.from ?? null, 'is required with to (a range query)');
    if (args.step != null) throw new InputError('from', args.from ?? null, 'is required with step (a range query)');
    return { expression, timeMs: args.time == null ? ctx.nowMs : timeArg(ctx, args.time, 'time') };
  }
  if (args.time != null)
    throw new InputError('time', args.time, 'is the time of an instant query: a range query takes from, to and step');
  const { startMs, endMs } = rangeArgs(ctx, args.from, args.to);
  if (args.step == null) throw new InputError('step', args.step ?? null, 'is required with from (a range query)');
  const stepMs = stepArg(args.step);
  // Prometheus counts whole steps between start and end.
  if (Math.floor((endMs - startMs) / stepMs) > MAX_POINTS_PER_SERIES)
    throw new InputError(
      'step',
      args.step,
      `gives more than ${MAX_POINTS_PER_SERIES.toLocaleString('en')} points per series between from and to: take a longer step`,
    );
  return { expression, startMs, endMs, stepMs };
}

const SECONDS = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A duration (`15s`, `1m30s`) or a number of seconds (`15`, `0.5`), as Prometheus's `step` parameter. */
function stepArg(step: string): number {
  let ms: number;
  if (SECONDS.test(step.trim())) ms = Number(step) * 1000;
  else {
    try {
      ms = parseDuration(step);
    } catch (error) {
      if (!(error instanceof PromqlError)) throw error;
      ms = Number.NaN;
    }
  }
  if (!(ms > 0) || !Number.isFinite(ms))
    throw new InputError('step', step, 'must be a positive duration (15s, 1m30s) or number of seconds (15, 0.5)');
  return ms;
}

/**
 * The result as series: a matrix's series and a vector's samples (one point at the evaluation time) by their labels,
 * a scalar as one series without tags, a string as one STRING point.
 */
function seriesOf(value: QueryValue, timeMs: number, name: string | undefined, expression: string): SeriesModel[] {
  switch (value.type) {
    case 'scalar':
      return [model([], name, expression, [timeMs], [value.value])];
    case 'string': {
      const points = new PointList();
      points.push(timeMs, 'string', value.value);
      return [{ name: name ?? expression, metric: '', tags: {}, groupBy: [], sampleSize: 1, points }];
    }
    case 'vector':
      return value.samples.map((s) => model(s.labels, name, expression, [timeMs], [s.value]));
    case 'matrix':
      return value.series.map((s) => model(s.labels, name, expression, s.timestampsMs, s.values));
  }
}

function model(
  labels: Labels,
  name: string | undefined,
  expression: string,
  timestampsMs: ArrayLike<number>,
  values: ArrayLike<number>,
): SeriesModel {
  const metric = labels.find((l) => l.name === METRIC_NAME)?.value ?? '';
  const tags: Record<string, readonly string[]> = {};
  for (const l of labels) if (l.name !== METRIC_NAME) tags[l.name] = [l.value];
  const points = new PointList();
  for (let i = 0; i < timestampsMs.length; i++) points.push(timestampsMs[i]!, 'double', values[i]!);
  const shown = name ?? (metric !== '' ? metric : expression);
  return { name: shown, metric, tags, groupBy: [], sampleSize: points.length, points };
}
