/**
 * Binary expressions: scalar with scalar, vector with scalar, and vector with vector through Prometheus's vector
 * matching (on/ignoring, group_left/group_right, set operators), with its errors for ambiguous matches.
 */
import type { BinaryExpr, VectorMatching } from './ast.js';
import { collectSteps } from './eval-call.js';
import type { EvalContext } from './eval-context.js';
import {
  dropLabels,
  keepLabels,
  type Labels,
  labelsKey,
  labelValue,
  setLabel,
  signature,
  withoutName,
} from './labels.js';
import { operatorDef, type OperatorDef } from './operators/operator-table.js';
import { PromqlError } from './promql-error.js';
import type { EvalValue, Sample, StepSeries, Vector } from './values.js';

export async function evalBinary(ev: EvalContext, expr: BinaryExpr): Promise<EvalValue> {
  const lhs = await ev.eval(expr.lhs);
  const rhs = await ev.eval(expr.rhs);
  if (lhs.type === 'scalar' && rhs.type === 'scalar') {
    const def = operatorDef(expr.op);
    return { type: 'scalar', values: lhs.values.map((l, i) => def.apply(l, rhs.values[i]!)) };
  }
  if (lhs.type === 'vector' && rhs.type === 'vector') {
    const cache: LabelsCache = new WeakMap();
    const matching = expr.matching ?? { card: 'one-to-one', on: false, labels: [], include: [] };
    const lSigs = lhs.series.map((s) => signature(s.labels, matching.labels, matching.on));
    const rSigs = rhs.series.map((s) => signature(s.labels, matching.labels, matching.on));
    const at = (series: StepSeries[], sigs: string[], step: number): [Vector, string[]] => {
      const vector: Vector = [];
      const vectorSigs: string[] = [];
      series.forEach((s, i) => {
        if (s.has[step] === 0) return;
        vector.push({ labels: s.labels, value: s.values[step]!, dropName: s.dropName });
        vectorSigs.push(sigs[i]!);
      });
      return [vector, vectorSigs];
    };
    return {
      type: 'vector',
      series: await collectSteps(ev, lhs.series.length + rhs.series.length, (step) => {
        const [l, ls] = at(lhs.series, lSigs, step);
        const [r, rs] = at(rhs.series, rSigs, step);
        return vectorBinop(cache, expr, matching, l, ls, r, rs);
      }),
    };
  }
  if (lhs.type === 'vector' && rhs.type === 'scalar') return vectorScalar(ev, expr, lhs.series, rhs.values, false);
  if (lhs.type === 'scalar' && rhs.type === 'vector') return vectorScalar(ev, expr, rhs.series, lhs.values, true);
  throw new PromqlError('execution', `binary expression must contain only scalar and instant vector types`);
}

async function vectorScalar(
  ev: EvalContext,
  expr: BinaryExpr,
  series: StepSeries[],
  scalars: Float64Array,
  swap: boolean,
): Promise<EvalValue> {
  const def = operatorDef(expr.op);
  const out: StepSeries[] = [];
  for (const s of series) {
    const result: StepSeries = {
      labels: s.labels,
      dropName: s.dropName || !def.comparison || expr.returnBool,
      values: new Float64Array(ev.steps),
      has: new Uint8Array(ev.steps),
    };
    let any = false;
    for (let i = 0; i < ev.steps; i++) {
      if (s.has[i] === 0) continue;
      const v = s.values[i]!;
      const c = scalars[i]!;
      const value = swap ? def.apply(c, v) : def.apply(v, c);
      if (def.comparison && !expr.returnBool && value === 0) continue;
      result.values[i] = def.comparison && !expr.returnBool ? v : value;
      result.has[i] = 1;
      any = true;
    }
    if (any) out.push(result);
    const turn = ev.meter.pace(ev.steps);
    if (turn !== undefined) await turn;
  }
  return { type: 'vector', series: out };
}

function vectorBinop(
  cache: LabelsCache,
  expr: BinaryExpr,
  matching: VectorMatching,
  lhs: Vector,
  lSigs: string[],
  rhs: Vector,
  rSigs: string[],
): Vector {
  switch (expr.op) {
    case 'and': {
      const right = new Set(rSigs);
      return lhs.filter((_, i) => right.has(lSigs[i]!));
    }
    case 'unless': {
      const right = new Set(rSigs);
      return lhs.filter((_, i) => !right.has(lSigs[i]!));
    }
    case 'or': {
      const left = new Set(lSigs);
      return [...lhs, ...rhs.filter((_, i) => !left.has(rSigs[i]!))];
    }
  }
  if (lhs.length === 0 || rhs.length === 0) return [];
  const def = operatorDef(expr.op);
  const swap = matching.card === 'one-to-many';
  const [many, manySigs, one, oneSigs] = swap ? [rhs, rSigs, lhs, lSigs] : [lhs, lSigs, rhs, rSigs];
  const oneBySig = new Map<string, Sample>();
  one.forEach((s, i) => {
    const duplicate = oneBySig.get(oneSigs[i]!);
    if (duplicate !== undefined) {
      const matched = matching.on
        ? keepLabels(s.labels, matching.labels)
        : withoutName(dropLabels(s.labels, matching.labels));
      const pair = [labelsString(s.labels), labelsString(duplicate.labels)].sort();
      throw new PromqlError(
        'execution',
        `found duplicate series for the match group ${labelsString(matched)} on the ${swap ? 'left' : 'right'} hand-side of the operation: [${pair[0]}, ${pair[1]}];many-to-many matching not allowed: matching labels must be unique on one side`,
      );
    }
    oneBySig.set(oneSigs[i]!, s);
  });
  const matchedOneToOne = new Set<string>();
  const inserted = new Map<string, Set<string>>();
  const out: Vector = [];
  many.forEach((ms, i) => {
    const sig = manySigs[i]!;
    const os = oneBySig.get(sig);
    if (os === undefined) return;
    const [l, r] = swap ? [os.value, ms.value] : [ms.value, os.value];
    const result = def.apply(l, r);
    const keep = !def.comparison || result === 1;
    const value = expr.returnBool ? (keep ? 1 : 0) : def.comparison ? l : result;
    const labels = resultLabels(cache, ms.labels, os.labels, def, matching);
    if (matching.card === 'one-to-one') {
      if (matchedOneToOne.has(sig))
        throw new PromqlError(
          'execution',
          'multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)',
        );
      matchedOneToOne.add(sig);
    } else {
      let keys = inserted.get(sig);
      if (keys === undefined) inserted.set(sig, (keys = new Set()));
      const key = labelsKey(labels);
      if (keys.has(key))
        throw new PromqlError('execution', 'multiple matches for labels: grouping labels must ensure unique matches');
      keys.add(key);
    }
    if (!keep && !expr.returnBool) return;
    out.push({ labels, value, dropName: expr.returnBool });
  });
  return out;
}

/** The "many" side's labels, less the metric name for arithmetic, narrowed for one-to-one, plus group_x labels. */
/** Per "many" label set, per "one" label set, the result's labels: for one binary expression. */
type LabelsCache = WeakMap<Labels, WeakMap<Labels, Labels>>;

function resultLabels(
  cache: LabelsCache,
  many: Labels,
  one: Labels,
  def: OperatorDef,
  matching: VectorMatching,
): Labels {
  // A pair of series meets at every step: its labels are worked out once (series keep their label arrays).
  let byOne = cache.get(many);
  if (byOne === undefined) cache.set(many, (byOne = new WeakMap()));
  let labels = byOne.get(one);
  if (labels === undefined) byOne.set(one, (labels = computeResultLabels(many, one, def, matching)));
  return labels;
}

function computeResultLabels(many: Labels, one: Labels, def: OperatorDef, matching: VectorMatching): Labels {
  let labels = def.comparison ? many : withoutName(many);
  if (matching.card === 'one-to-one')
    labels = matching.on ? keepLabels(labels, matching.labels) : dropLabels(labels, matching.labels);
  for (const name of matching.include) labels = setLabel(labels, name, labelValue(one, name));
  return labels;
}

/** Prometheus's Labels.String(): every label in braces, the metric name among them. */
function labelsString(labels: Labels): string {
  return `{${labels.map((l) => `${l.name}=${JSON.stringify(l.value)}`).join(', ')}}`;
}
