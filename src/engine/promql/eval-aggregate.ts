/**
 * Aggregation expressions: series are grouped once by their `by`/`without` labels, then each step folds or selects
 * within each group; parameters are checked over all steps first, with Prometheus's errors and warnings.
 */
import { AGGREGATIONS } from './aggregations/aggregation-table.js';
import type { AggregateExpr } from './ast.js';
import { collectSteps } from './eval-call.js';
import type { EvalContext } from './eval-context.js';
import { goQuote, isValidLabelName } from './lexer.js';
import { dropLabels, keepLabels, type Labels, labelsKey, METRIC_NAME, setLabel } from './labels.js';
import { formatFloat, formatG } from './format-float.js';
import { PromqlError } from './promql-error.js';
import { type EvalValue, newStepSeries, type StepSeries, type Vector } from './values.js';

function groupLabels(labels: Labels, expr: AggregateExpr): Labels {
  if (expr.without) return dropLabels(labels, [...expr.grouping, METRIC_NAME]);
  return expr.grouping.length === 0 ? [] : keepLabels(labels, expr.grouping);
}

export async function evalAggregate(ev: EvalContext, expr: AggregateExpr): Promise<EvalValue> {
  const def = AGGREGATIONS.get(expr.op);
  if (def === undefined) throw new PromqlError('bad_data', `unknown aggregation ${expr.op}`);
  let params: Float64Array = new Float64Array(ev.steps);
  let valueLabel = '';
  if (def.param === 'scalar') params = await ev.evalScalar(expr.param!);
  if (def.param === 'string') {
    const value = await ev.eval(expr.param!);
    if (value.type !== 'string') throw new PromqlError('bad_data', 'count_values needs a string parameter');
    valueLabel = value.value;
    if (!isValidLabelName(valueLabel)) throw new PromqlError('execution', `invalid label name ${goQuote(valueLabel)}`);
  }
  const input = await ev.evalVector(expr.expr);
  if (def.kind === 'count_values') return countValues(ev, expr, input, valueLabel);
  const groupOf = new Map<string, number>();
  const groups: Labels[] = [];
  const seriesGroup = input.map((s) => {
    const labels = groupLabels(s.labels, expr);
    const key = labelsKey(labels);
    let index = groupOf.get(key);
    if (index === undefined) {
      groupOf.set(key, (index = groups.length));
      groups.push(labels);
    }
    return index;
  });
  if (def.kind === 'select') {
    checkSelectParams(ev, expr, params);
    return {
      type: 'vector',
      series: await collectSteps(ev, input.length, (step) =>
        selectStep(input, seriesGroup, groups.length, step, (samples) => def.select(samples, params[step]!)),
      ),
    };
  }
  if (expr.op === 'quantile') quantileWarnings(ev, expr, params);
  const out = groups.map((labels) => newStepSeries(labels, false, ev.steps));
  for (let step = 0; step < ev.steps; step++) {
    const turn = ev.meter.pace(input.length + groups.length);
    if (turn !== undefined) await turn;
    const values: number[][] = groups.map(() => []);
    input.forEach((s, i) => {
      if (s.has[step] === 0) return;
      values[seriesGroup[i]!]!.push(s.values[step]!);
      if (s.dropName) out[seriesGroup[i]!]!.dropName = true;
    });
    values.forEach((vs, g) => {
      if (vs.length === 0) return;
      out[g]!.values[step] = def.reduce(vs, params[step]!);
      out[g]!.has[step] = 1;
    });
  }
  return { type: 'vector', series: out.filter((s) => s.has.includes(1)) };
}

function selectStep(
  input: StepSeries[],
  seriesGroup: number[],
  groupCount: number,
  step: number,
  select: (samples: Vector) => Vector,
): Vector {
  const members: Vector[] = Array.from({ length: groupCount }, () => []);
  input.forEach((s, i) => {
    if (s.has[step] === 1)
      members[seriesGroup[i]!]!.push({ labels: s.labels, value: s.values[step]!, dropName: s.dropName });
  });
  return members.flatMap((samples) => (samples.length === 0 ? [] : select(samples)));
}

function checkSelectParams(ev: EvalContext, expr: AggregateExpr, params: Float64Array): void {
  const max = Math.max(...params);
  const min = Math.min(...params);
  const hasNaN = params.some(Number.isNaN);
  if (expr.op === 'limit_ratio') {
    if (max === 0 && min === 0) return;
    if (hasNaN) throw new PromqlError('execution', 'Ratio value is NaN');
    if (max > 1)
      ev.annotations.add(
        'warning',
        `ratio value should be between -1 and 1, got ${formatG(max)}, capping to 1`,
        expr.param!.pos,
      );
    if (min < -1)
      ev.annotations.add(
        'warning',
        `ratio value should be between -1 and 1, got ${formatG(min)}, capping to -1`,
        expr.param!.pos,
      );
    return;
  }
  if (max < 1) return;
  if (hasNaN) throw new PromqlError('execution', 'Parameter value is NaN');
  if (min <= -(2 ** 63)) throw new PromqlError('execution', `Scalar value ${formatG(min)} underflows int64`);
  if (max >= 2 ** 63) throw new PromqlError('execution', `Scalar value ${formatG(max)} overflows int64`);
}

function quantileWarnings(ev: EvalContext, expr: AggregateExpr, params: Float64Array): void {
  const pos = expr.param!.pos;
  if (params.some(Number.isNaN))
    ev.annotations.add('warning', 'quantile value should be between 0 and 1, got NaN', pos);
  const max = Math.max(...params);
  const min = Math.min(...params);
  if (max > 1) ev.annotations.add('warning', `quantile value should be between 0 and 1, got ${formatG(max)}`, pos);
  if (min < 0) ev.annotations.add('warning', `quantile value should be between 0 and 1, got ${formatG(min)}`, pos);
}

async function countValues(
  ev: EvalContext,
  expr: AggregateExpr,
  input: StepSeries[],
  valueLabel: string,
): Promise<EvalValue> {
  const groupExpr = expr.without ? expr : { ...expr, grouping: [...expr.grouping, valueLabel] };
  return {
    type: 'vector',
    series: await collectSteps(ev, input.length, (step) => {
      const counts = new Map<string, { labels: Labels; count: number }>();
      for (const s of input) {
        if (s.has[step] === 0) continue;
        const labels = groupLabels(setLabel(s.labels, valueLabel, formatFloat(s.values[step]!)), groupExpr);
        const key = labelsKey(labels);
        const entry = counts.get(key);
        if (entry === undefined) counts.set(key, { labels, count: 1 });
        else entry.count++;
      }
      return [...counts.values()].map((c) => ({ labels: c.labels, value: c.count, dropName: false }));
    }),
  };
}
