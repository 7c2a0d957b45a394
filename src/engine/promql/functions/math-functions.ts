/**
 * Functions that map each sample's value: rounding, logarithms, trigonometry, sign, clamping. Each drops the metric
 * name (delayed, as the name may still be read before the end).
 */
import type { Vector } from '../values.js';
import { mapSamples, type StepFunction } from './function-types.js';

const v = ['vector'] as const;

function map(name: string, fn: (value: number) => number): StepFunction {
  return {
    name,
    kind: 'step',
    argTypes: v,
    returnType: 'vector',
    evalStep: ([vector]) => mapSamples(vector as Vector, fn),
  };
}

export const MATH_FUNCTIONS: readonly StepFunction[] = [
  map('abs', Math.abs),
  map('ceil', Math.ceil),
  map('floor', Math.floor),
  map('exp', Math.exp),
  map('sqrt', Math.sqrt),
  map('ln', Math.log),
  map('log2', Math.log2),
  map('log10', Math.log10),
  map('sgn', (x) => (x < 0 ? -1 : x > 0 ? 1 : x)),
  map('deg', (x) => (x * 180) / Math.PI),
  map('rad', (x) => (x * Math.PI) / 180),
  map('sin', Math.sin),
  map('cos', Math.cos),
  map('tan', Math.tan),
  map('asin', Math.asin),
  map('acos', Math.acos),
  map('atan', Math.atan),
  map('sinh', Math.sinh),
  map('cosh', Math.cosh),
  map('tanh', Math.tanh),
  map('asinh', Math.asinh),
  map('acosh', Math.acosh),
  map('atanh', Math.atanh),
  {
    name: 'round',
    kind: 'step',
    argTypes: ['vector', 'scalar'],
    variadic: 1,
    returnType: 'vector',
    evalStep: ([vector, toNearest]) => {
      // Prometheus rounds half up through the inverse of the multiple, which keeps e.g. 0.1 multiples exact.
      const inverse = 1 / ((toNearest as number | undefined) ?? 1);
      return mapSamples(vector as Vector, (x) => Math.floor(x * inverse + 0.5) / inverse);
    },
  },
  {
    name: 'clamp',
    kind: 'step',
    argTypes: ['vector', 'scalar', 'scalar'],
    returnType: 'vector',
    evalStep: ([vector, min, max]) =>
      (max as number) < (min as number)
        ? []
        : mapSamples(vector as Vector, (x) => Math.max(min as number, Math.min(max as number, x))),
  },
  {
    name: 'clamp_min',
    kind: 'step',
    argTypes: ['vector', 'scalar'],
    returnType: 'vector',
    evalStep: ([vector, min]) => mapSamples(vector as Vector, (x) => Math.max(x, min as number)),
  },
  {
    name: 'clamp_max',
    kind: 'step',
    argTypes: ['vector', 'scalar'],
    returnType: 'vector',
    evalStep: ([vector, max]) => mapSamples(vector as Vector, (x) => Math.min(x, max as number)),
  },
];
