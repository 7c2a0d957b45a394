/**
 * Functions between types and about presence: vector, scalar, timestamp, absent, pi, and sorting (which orders an
 * instant query's answer and warns in a range query, whose answer is always ordered by labels).
 */
import { compareLabels, labelValue } from '../labels.js';
import { absentLabels } from './absent-labels.js';
import type { Sample, Vector } from '../values.js';
import type { FunctionContext, StepFunction } from './function-types.js';

/** Ascending with NaN last (sort) or descending with NaN last (sort_desc); stable, as Go's sort is on few items. */
function byValue(vector: Vector, descending: boolean, ctx: FunctionContext): Vector {
  if (ctx.rangeQuery)
    ctx.annotations.add(
      'warning',
      'sort is ineffective for range queries since results are always ordered by labels',
      ctx.call.pos,
    );
  return [...vector].sort((a, b) => {
    if (Number.isNaN(a.value)) return Number.isNaN(b.value) ? 0 : 1;
    if (Number.isNaN(b.value)) return -1;
    return descending ? b.value - a.value : a.value - b.value;
  });
}

/** Natural order: runs of digits compare as numbers. */
function naturalCompare(a: string, b: string): number {
  const chunks = (s: string): string[] => s.match(/\d+|\D+/g) ?? [];
  const x = chunks(a);
  const y = chunks(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p === q) continue;
    if (/^\d/.test(p) && /^\d/.test(q)) {
      const d = Number(p) - Number(q);
      if (d !== 0) return d;
      return p.length - q.length;
    }
    return p < q ? -1 : 1;
  }
  return x.length - y.length;
}

function byLabels(vector: Vector, names: readonly string[], descending: boolean, ctx: FunctionContext): Vector {
  if (ctx.rangeQuery)
    ctx.annotations.add(
      'warning',
      'sort is ineffective for range queries since results are always ordered by labels',
      ctx.call.pos,
    );
  const sign = descending ? -1 : 1;
  return [...vector].sort((a: Sample, b: Sample) => {
    for (const name of names) {
      const c = naturalCompare(labelValue(a.labels, name), labelValue(b.labels, name));
      if (c !== 0) return sign * c;
    }
    return sign * compareLabels(a.labels, b.labels);
  });
}

export const MISC_FUNCTIONS: readonly StepFunction[] = [
  { name: 'pi', kind: 'step', argTypes: [], returnType: 'scalar', evalStep: () => Math.PI },
  {
    name: 'vector',
    kind: 'step',
    argTypes: ['scalar'],
    returnType: 'vector',
    evalStep: ([value]) => [{ labels: [], value: value as number, dropName: false }],
  },
  {
    name: 'scalar',
    kind: 'step',
    argTypes: ['vector'],
    returnType: 'scalar',
    evalStep: ([vector]) => ((vector as Vector).length === 1 ? (vector as Vector)[0]!.value : Number.NaN),
  },
  {
    name: 'timestamp',
    kind: 'step',
    argTypes: ['vector'],
    returnType: 'vector',
    // Over a selector the evaluator hands in the samples' times already; over anything else samples are at the step.
    evalStep: ([vector], ctx) =>
      (vector as Vector).map((s) => ({
        labels: s.labels,
        value: ctx.args[0]!.kind === 'vector' || unwrapsToSelector(ctx) ? s.value : ctx.timeMs / 1000,
        dropName: true,
      })),
  },
  {
    name: 'absent',
    kind: 'step',
    argTypes: ['vector'],
    returnType: 'vector',
    evalStep: ([v], ctx) =>
      (v as Vector).length > 0 ? [] : [{ labels: absentLabels(ctx.args[0]!), value: 1, dropName: false }],
  },
  {
    name: 'sort',
    kind: 'step',
    argTypes: ['vector'],
    returnType: 'vector',
    evalStep: ([v], ctx) => byValue(v as Vector, false, ctx),
  },
  {
    name: 'sort_desc',
    kind: 'step',
    argTypes: ['vector'],
    returnType: 'vector',
    evalStep: ([v], ctx) => byValue(v as Vector, true, ctx),
  },
  {
    name: 'sort_by_label',
    kind: 'step',
    argTypes: ['vector', 'string'],
    variadic: -1,
    experimental: true,
    returnType: 'vector',
    evalStep: ([v, ...names], ctx) => byLabels(v as Vector, names as string[], false, ctx),
  },
  {
    name: 'sort_by_label_desc',
    kind: 'step',
    argTypes: ['vector', 'string'],
    variadic: -1,
    experimental: true,
    returnType: 'vector',
    evalStep: ([v, ...names], ctx) => byLabels(v as Vector, names as string[], true, ctx),
  },
];

function unwrapsToSelector(ctx: FunctionContext): boolean {
  let arg = ctx.args[0];
  while (arg?.kind === 'paren') arg = arg.expr;
  return arg?.kind === 'vector';
}
