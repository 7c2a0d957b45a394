/**
 * Function calls: range functions run per series over each step's window of their range argument; step functions
 * run per step over their arguments' values. Both take their definitions from the function table.
 */
import type { Call, Expr, MatrixSelector, SubqueryExpr } from './ast.js';
import type { EvalContext } from './eval-context.js';
import { paceOf, rangeOf, readTimes, selectChunkedSeries, subquerySeries, vectorSelector } from './eval-selectors.js';
import { absentLabels } from './functions/absent-labels.js';
import { functionDef } from './functions/function-table.js';
import type { FunctionContext, RangeFunction, StepArg, StepFunction } from './functions/function-types.js';
import { labelsKey, labelValue, METRIC_NAME } from './labels.js';
import { PromqlError } from './promql-error.js';
import { forEachWindow } from './window-buffer.js';
import { type EvalValue, newStepSeries, type ChunkedSeries, type StepSeries, type Vector } from './values.js';

export async function evalCall(ev: EvalContext, call: Call): Promise<EvalValue> {
  const def = functionDef(call.func);
  if (def === undefined) throw new PromqlError('bad_data', `unknown function with name "${call.func}"`);
  if (def.kind === 'range') return evalRangeFunction(ev, call, def);
  if (def.kind === 'series') {
    const series = await ev.evalVector(call.args[0]!);
    const strings: string[] = [];
    for (const arg of call.args.slice(1)) {
      const value = await ev.eval(arg);
      strings.push(value.type === 'string' ? value.value : '');
    }
    return { type: 'vector', series: def.evalSeries(series, strings) };
  }
  return evalStepFunction(ev, call, def);
}

function unwrap(expr: Expr): Expr {
  return expr.kind === 'paren' ? unwrap(expr.expr) : expr;
}

function context(ev: EvalContext, call: Call, step: number): FunctionContext {
  return {
    timeMs: ev.timeAt(step),
    args: call.args,
    call,
    annotations: ev.annotations,
    rangeQuery: ev.startMs !== ev.endMs,
    query: { startMs: ev.options.queryStartMs, endMs: ev.options.queryEndMs, stepMs: ev.options.queryStepMs },
  };
}

const COUNTER_SUFFIXES = ['_total', '_sum', '_count', '_bucket'];

async function evalRangeFunction(ev: EvalContext, call: Call, def: RangeFunction): Promise<EvalValue> {
  const rangeIndex = def.argTypes.indexOf('matrix');
  const rangeArg = unwrap(call.args[rangeIndex]!) as MatrixSelector | SubqueryExpr;
  const scalarArgs: Float64Array[] = [];
  for (const [i, arg] of call.args.entries()) if (i !== rangeIndex) scalarArgs.push(await ev.evalScalar(arg));
  const source: AsyncIterable<ChunkedSeries> | ChunkedSeries[] =
    rangeArg.kind === 'matrix' ? selectChunkedSeries(ev, rangeArg) : await subquerySeries(ev, rangeArg);
  const { rangeMs, at, offsetMs } = rangeOf(rangeArg);
  const times = readTimes(ev, at, offsetMs);
  const out: StepSeries[] = [];
  const scalars = new Array<number>(scalarArgs.length);
  const counterCheck = call.func === 'rate' || call.func === 'increase';
  const pace = paceOf(ev);
  for await (const series of source) {
    const result = newStepSeries(series.labels, def.keepsName !== true || series.dropName, ev.steps);
    let any = false;
    await forEachWindow(
      series.labels,
      series.chunks,
      times,
      rangeMs,
      (step, window) => {
        for (let k = 0; k < scalarArgs.length; k++) scalars[k] = scalarArgs[k]![step]!;
        const value = def.evalWindow(window, scalars, context(ev, call, step));
        if (value === undefined) return;
        result.values[step] = value;
        result.has[step] = 1;
        any = true;
      },
      pace,
    );
    if (!any) continue;
    out.push(result);
    const name = labelValue(series.labels, METRIC_NAME);
    if (counterCheck && name !== '' && !COUNTER_SUFFIXES.some((suffix) => name.endsWith(suffix)))
      ev.annotations.add(
        'info',
        `metric might not be a counter, name does not end in _total/_sum/_count/_bucket: ${JSON.stringify(name)}`,
        call.args[rangeIndex]!.pos,
      );
  }
  if (call.func === 'absent_over_time') return absentOverTime(ev, call, out);
  return { type: 'vector', series: out };
}

/** 1 at every step where no series had a point in its window, labelled from the selector's equality matchers. */
async function absentOverTime(ev: EvalContext, call: Call, present: StepSeries[]): Promise<EvalValue> {
  const result = newStepSeries(absentLabels(call.args[0]!), false, ev.steps);
  for (let i = 0; i < ev.steps; i++) {
    const turn = ev.meter.pace(1 + present.length);
    if (turn !== undefined) await turn;
    if (present.some((s) => s.has[i] === 1)) continue;
    result.values[i] = 1;
    result.has[i] = 1;
  }
  return { type: 'vector', series: result.has.includes(1) ? [result] : [] };
}

async function evalStepFunction(ev: EvalContext, call: Call, def: StepFunction): Promise<EvalValue> {
  const args: (StepSeries[] | Float64Array | string)[] = [];
  for (const arg of call.args) {
    const inner = unwrap(arg);
    if (call.func === 'timestamp' && inner.kind === 'vector') {
      // timestamp() of a selector answers the samples' own times, not the steps'.
      args.push(await vectorSelector(ev, inner, true));
      continue;
    }
    const value = await ev.eval(arg);
    if (value.type === 'vector') args.push(value.series);
    else if (value.type === 'scalar') args.push(value.values);
    else if (value.type === 'string') args.push(value.value);
    else throw new PromqlError('execution', `unexpected range vector in call to ${call.func}`);
  }
  // A step reads every series of its arguments.
  const units = 1 + args.reduce((n, arg) => n + (Array.isArray(arg) ? arg.length : 0), 0);
  if (def.returnType === 'scalar') {
    const values = new Float64Array(ev.steps);
    for (let i = 0; i < ev.steps; i++) {
      values[i] = def.evalStep(stepArgs(args, i), context(ev, call, i)) as number;
      const turn = ev.meter.pace(units);
      if (turn !== undefined) await turn;
    }
    return { type: 'scalar', values };
  }
  return {
    type: 'vector',
    series: await collectSteps(ev, units, (i) => def.evalStep(stepArgs(args, i), context(ev, call, i)) as Vector),
  };
}

function stepArgs(args: readonly (StepSeries[] | Float64Array | string)[], step: number): StepArg[] {
  return args.map((arg) => {
    if (typeof arg === 'string') return arg;
    if (arg instanceof Float64Array) return arg[step]!;
    const vector: Vector = [];
    for (const s of arg)
      if (s.has[step] === 1) vector.push({ labels: s.labels, value: s.values[step]!, dropName: s.dropName });
    return vector;
  });
}

/**
 * Gathers per-step vectors into series over the steps, in order of first appearance. Two samples with one label set
 * at one step are an error, as in Prometheus's range evaluation; a single-step query leaves that check to the end,
 * after delayed name removal. `units`: the work of one step (the series it reads), for the meter's pace.
 */
export async function collectSteps(
  ev: EvalContext,
  units: number,
  stepVector: (step: number) => Vector,
): Promise<StepSeries[]> {
  const byKey = new Map<string, StepSeries>();
  for (let i = 0; i < ev.steps; i++) {
    const vector = stepVector(i);
    const turn = ev.meter.pace(units + vector.length);
    if (turn !== undefined) await turn;
    if (ev.steps === 1) return vector.map((s) => withValue(newStepSeries(s.labels, s.dropName, 1), 0, s.value));
    for (const sample of vector) {
      const key = labelsKey(sample.labels);
      let series = byKey.get(key);
      if (series === undefined) byKey.set(key, (series = newStepSeries(sample.labels, sample.dropName, ev.steps)));
      else if (series.has[i] === 1)
        throw new PromqlError('execution', 'vector cannot contain metrics with the same labelset');
      withValue(series, i, sample.value);
    }
  }
  return [...byKey.values()];
}

function withValue(series: StepSeries, step: number, value: number): StepSeries {
  series.values[step] = value;
  series.has[step] = 1;
  return series;
}
