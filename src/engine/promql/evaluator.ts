/**
 * The evaluator: walks the tree over all steps of a query at once (Prometheus's range evaluation), each node
 * yielding series over the steps. Selectors, calls, operators and aggregations live in their own modules.
 */
import type { Annotations } from './annotations.js';
import type { Expr, SubqueryExpr } from './ast.js';
import { evalAggregate } from './eval-aggregate.js';
import { evalBinary } from './eval-binary.js';
import { evalCall } from './eval-call.js';
import type { EvalContext, EvalOptions } from './eval-context.js';
import type { EvalMeter } from './eval-meter.js';
import { matrixAt, resolveAt, selectChunkedSeries, subquerySeries, vectorSelector } from './eval-selectors.js';
import { PromqlError } from './promql-error.js';
import type { SeriesAccess } from './series-access.js';
import type { EvalValue, PointSeries, StepSeries } from './values.js';

export class Evaluator implements EvalContext {
  readonly steps: number;

  constructor(
    readonly access: SeriesAccess,
    readonly startMs: number,
    readonly endMs: number,
    readonly intervalMs: number,
    readonly options: EvalOptions,
    readonly annotations: Annotations,
    readonly meter: EvalMeter,
  ) {
    this.steps = intervalMs > 0 ? Math.floor((endMs - startMs) / intervalMs) + 1 : 1;
  }

  timeAt(step: number): number {
    return this.startMs + step * this.intervalMs;
  }

  /** An evaluator over other steps (a subquery's), sharing the storage, options and annotations. */
  child(startMs: number, endMs: number, intervalMs: number): Evaluator {
    return new Evaluator(this.access, startMs, endMs, intervalMs, this.options, this.annotations, this.meter);
  }

  async eval(expr: Expr): Promise<EvalValue> {
    this.meter.checkAborted();
    switch (expr.kind) {
      case 'number':
        return { type: 'scalar', values: new Float64Array(this.steps).fill(expr.value) };
      case 'string':
        return { type: 'string', value: expr.value };
      case 'paren':
        return this.eval(expr.expr);
      case 'unary': {
        const value = await this.eval(expr.expr);
        if (expr.op === '+') return value;
        if (value.type === 'scalar') return { type: 'scalar', values: value.values.map((v) => -v) };
        if (value.type !== 'vector') throw new PromqlError('execution', 'unary minus on a non-numeric value');
        for (const s of value.series) {
          for (let i = 0; i < s.values.length; i++) s.values[i] = -s.values[i]!;
          s.dropName = true;
          const turn = this.meter.pace(this.steps);
          if (turn !== undefined) await turn;
        }
        return value;
      }
      case 'vector':
        return { type: 'vector', series: await vectorSelector(this, expr, false) };
      case 'matrix':
      case 'subquery':
        return { type: 'matrix', series: await this.rangeAtEnd(expr) };
      case 'call':
        return evalCall(this, expr);
      case 'aggregate':
        return evalAggregate(this, expr);
      case 'binary':
        return evalBinary(this, expr);
    }
  }

  async evalVector(expr: Expr): Promise<StepSeries[]> {
    const value = await this.eval(expr);
    if (value.type !== 'vector') throw new PromqlError('execution', `expected an instant vector, got ${value.type}`);
    return value.series;
  }

  async evalScalar(expr: Expr): Promise<Float64Array> {
    const value = await this.eval(expr);
    if (value.type !== 'scalar') throw new PromqlError('execution', `expected a scalar, got ${value.type}`);
    return value.values;
  }

  /** The raw points of a range selector or subquery, as a range vector at the last step (instant queries). */
  private async rangeAtEnd(expr: Expr & { kind: 'matrix' | 'subquery' }): Promise<PointSeries[]> {
    const source = expr.kind === 'matrix' ? selectChunkedSeries(this, expr) : await subquerySeries(this, expr);
    return matrixAt(this, expr, source, this.steps - 1);
  }

  /** Where a subquery evaluates: Prometheus aligns its steps to multiples of its step in absolute time. */
  subqueryEvaluator(expr: SubqueryExpr): Evaluator {
    const stepMs = expr.stepMs > 0 ? expr.stepMs : this.options.defaultSubqueryStepMs;
    const at = resolveAt(this, expr.at);
    const firstMs = at ?? this.startMs;
    const lastMs = at ?? this.timeAt(this.steps - 1);
    const lowest = firstMs - expr.offsetMs - expr.rangeMs;
    // The window is left-open: the first step is the first multiple of the step strictly after its start.
    let start = stepMs * Math.trunc(lowest / stepMs);
    if (start <= lowest) start += stepMs;
    return this.child(start, lastMs - expr.offsetMs, stepMs);
  }
}
