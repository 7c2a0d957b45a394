/**
 * What the evaluation modules (selectors, calls, operators, aggregations) see of the evaluator: its steps, options
 * and recursion. An interface of its own, so that they and the evaluator do not import each other.
 */
import type { Annotations } from './annotations.js';
import type { Expr, SubqueryExpr } from './ast.js';
import type { EvalMeter } from './eval-meter.js';
import type { SeriesAccess } from './series-access.js';
import type { EvalValue, StepSeries } from './values.js';

export interface EvalOptions {
  /** How far back an instant selector looks for a sample (Prometheus's `--query.lookback-delta`, 5m by default). */
  readonly lookbackMs: number;
  /** The step of a subquery that gives none (Prometheus uses its global evaluation interval, 1m by default). */
  readonly defaultSubqueryStepMs: number;
  /** The top-level query's range and step (0 for instant queries), for `@ start()`, `@ end()` and step(). */
  readonly queryStartMs: number;
  readonly queryEndMs: number;
  readonly queryStepMs: number;
  readonly signal: AbortSignal | undefined;
}

export interface EvalContext {
  readonly access: SeriesAccess;
  readonly startMs: number;
  readonly endMs: number;
  readonly intervalMs: number;
  readonly steps: number;
  readonly options: EvalOptions;
  readonly annotations: Annotations;
  /** The whole query's turns on the thread, abort signal and samples held, shared with its subqueries. */
  readonly meter: EvalMeter;
  timeAt(step: number): number;
  eval(expr: Expr): Promise<EvalValue>;
  evalVector(expr: Expr): Promise<StepSeries[]>;
  evalScalar(expr: Expr): Promise<Float64Array>;
  /** An evaluator over a subquery's own steps, aligned as Prometheus aligns them. */
  subqueryEvaluator(expr: SubqueryExpr): EvalContext;
}
