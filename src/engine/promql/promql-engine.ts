/**
 * The PromQL engine's entry: instant and range queries over a SeriesAccess, with Prometheus's answer shapes
 * (vector, scalar, string, matrix), its delayed removal of `__name__` at the end, and warnings and infos beside.
 */
import type { Lane } from '../../lib/time-slice.js';
import { Annotations } from './annotations.js';
import { typeOf } from './check-types.js';
import type { EvalOptions } from './eval-context.js';
import { EvalMeter } from './eval-meter.js';
import { Evaluator } from './evaluator.js';
import { mergeSameLabels } from './functions/merge-series.js';
import { compareLabels, type Labels, labelsKey, withoutName } from './labels.js';
import { type ParseOptions, parseExpr } from './parser.js';
import { PromqlError, parseErrorMessage } from './promql-error.js';
import type { SeriesAccess } from './series-access.js';
import type { EvalValue, StepSeries } from './values.js';

export interface PromqlEngineOptions extends ParseOptions {
  /** How far back instant selectors look; Prometheus's default is 5 minutes. */
  readonly lookbackMs?: number;
  /** The step of subqueries that give none; Prometheus uses its evaluation interval, 1 minute by default. */
  readonly defaultSubqueryStepMs?: number;
  /**
   * The most samples a query may hold (Prometheus's `--query.max-samples`): each series a selector yields holds one
   * per step of the evaluation it is in (a subquery's own steps within a subquery), a subquery's result its points.
   */
  readonly maxSamples?: number;
  /** Where the evaluation queues for its turns on the thread (lib/time-slice.ts); a shared lane when absent. */
  readonly lane?: Lane;
}

interface InstantSample {
  readonly labels: Labels;
  readonly value: number;
}

interface RangeSeries {
  readonly labels: Labels;
  readonly timestampsMs: Float64Array;
  readonly values: Float64Array;
}

export type QueryValue =
  | { readonly type: 'vector'; readonly samples: readonly InstantSample[] }
  | { readonly type: 'scalar'; readonly value: number }
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'matrix'; readonly series: readonly RangeSeries[] };

export interface QueryResult {
  /** Evaluation time of an instant query (the time of its vector's samples); the start of a range query. */
  readonly timeMs: number;
  readonly value: QueryValue;
  readonly warnings: readonly string[];
  readonly infos: readonly string[];
}

export class PromqlEngine {
  private readonly lookbackMs: number;
  private readonly defaultSubqueryStepMs: number;
  private readonly maxSamples: number;

  constructor(
    private readonly access: SeriesAccess,
    private readonly options: PromqlEngineOptions = {},
  ) {
    this.lookbackMs = options.lookbackMs ?? 300_000;
    this.defaultSubqueryStepMs = options.defaultSubqueryStepMs ?? 60_000;
    this.maxSamples = options.maxSamples ?? Number.POSITIVE_INFINITY;
    if (!(this.maxSamples > 0)) throw new Error(`maxSamples must be a positive number: ${this.maxSamples}`);
    if (!(this.lookbackMs > 0)) throw new Error(`lookbackMs must be a positive number: ${this.lookbackMs}`);
    if (!(this.defaultSubqueryStepMs > 0))
      throw new Error(`defaultSubqueryStepMs must be a positive number: ${this.defaultSubqueryStepMs}`);
  }

  async instantQuery(query: string, timeMs: number, signal?: AbortSignal): Promise<QueryResult> {
    const expr = this.parse(query);
    const annotations = new Annotations(query);
    const ev = new Evaluator(
      this.access,
      timeMs,
      timeMs,
      0,
      this.evalOptions(timeMs, timeMs, 0, signal),
      annotations,
      this.meter(signal),
    );
    const value = await ev.eval(expr);
    return { timeMs, value: instantValue(value), warnings: [...annotations.warnings], infos: [...annotations.infos] };
  }

  async rangeQuery(
    query: string,
    startMs: number,
    endMs: number,
    stepMs: number,
    signal?: AbortSignal,
  ): Promise<QueryResult> {
    if (!(stepMs > 0))
      throw new PromqlError(
        'bad_data',
        'zero or negative query resolution step widths are not accepted. Try a positive integer',
      );
    if (endMs < startMs) throw new PromqlError('bad_data', 'end timestamp must not be before start time');
    const expr = this.parse(query);
    const type = typeOf(expr);
    if (type !== 'scalar' && type !== 'vector')
      throw new PromqlError(
        'bad_data',
        `invalid expression type "${type === 'matrix' ? 'range vector' : type}" for range query, must be Scalar or instant Vector`,
      );
    const annotations = new Annotations(query);
    const ev = new Evaluator(
      this.access,
      startMs,
      endMs,
      stepMs,
      this.evalOptions(startMs, endMs, endMs > startMs ? stepMs : 0, signal),
      annotations,
      this.meter(signal),
    );
    const value = await ev.eval(expr);
    return {
      timeMs: startMs,
      value: await rangeValue(ev, value),
      warnings: [...annotations.warnings],
      infos: [...annotations.infos],
    };
  }

  private parse(query: string) {
    try {
      return parseExpr(query, this.options);
    } catch (error) {
      if (error instanceof PromqlError && error.position !== undefined)
        throw new PromqlError(error.type, parseErrorMessage(query, error));
      throw error;
    }
  }

  private meter(signal: AbortSignal | undefined): EvalMeter {
    return new EvalMeter(signal, this.options.lane, this.maxSamples);
  }

  private evalOptions(startMs: number, endMs: number, stepMs: number, signal: AbortSignal | undefined): EvalOptions {
    return {
      lookbackMs: this.lookbackMs,
      defaultSubqueryStepMs: this.defaultSubqueryStepMs,
      queryStartMs: startMs,
      queryEndMs: endMs,
      queryStepMs: stepMs,
      signal,
    };
  }
}

/** Delayed `__name__` removal, applied once at the end as Prometheus does with the option on. */
function finalLabels(series: { labels: Labels; dropName: boolean }): Labels {
  return series.dropName ? withoutName(series.labels) : series.labels;
}

function instantValue(value: EvalValue): QueryValue {
  switch (value.type) {
    case 'scalar':
      return { type: 'scalar', value: value.values[0]! };
    case 'string':
      return { type: 'string', value: value.value };
    case 'matrix':
      return {
        type: 'matrix',
        series: value.series.map((s) => ({ labels: finalLabels(s), timestampsMs: s.timestampsMs, values: s.values })),
      };
    case 'vector': {
      const samples = value.series
        .filter((s) => s.has[0] === 1)
        .map((s) => ({ labels: finalLabels(s), value: s.values[0]! }));
      const keys = new Set(samples.map((s) => labelsKey(s.labels)));
      if (keys.size !== samples.length)
        throw new PromqlError('execution', 'vector cannot contain metrics with the same labelset');
      return { type: 'vector', samples };
    }
  }
}

async function rangeValue(ev: Evaluator, value: EvalValue): Promise<QueryValue> {
  let series: StepSeries[];
  if (value.type === 'scalar')
    series = [{ labels: [], dropName: false, values: value.values, has: new Uint8Array(ev.steps).fill(1) }];
  else if (value.type === 'vector')
    series = mergeSameLabels(value.series.map((s) => ({ ...s, labels: finalLabels(s), dropName: false })));
  else
    throw new PromqlError(
      'bad_data',
      `invalid expression type "${value.type}" for range query, must be Scalar or instant Vector`,
    );
  const out: RangeSeries[] = [];
  for (const s of series) {
    let n = 0;
    for (let i = 0; i < ev.steps; i++) n += s.has[i]!;
    if (n === 0) continue;
    const ts = new Float64Array(n);
    const vs = new Float64Array(n);
    for (let i = 0, k = 0; i < ev.steps; i++) {
      if (s.has[i] === 0) continue;
      ts[k] = ev.timeAt(i);
      vs[k++] = s.values[i]!;
    }
    out.push({ labels: s.labels, timestampsMs: ts, values: vs });
    const turn = ev.meter.pace(ev.steps);
    if (turn !== undefined) await turn;
  }
  return { type: 'matrix', series: out.sort((a, b) => compareLabels(a.labels, b.labels)) };
}
