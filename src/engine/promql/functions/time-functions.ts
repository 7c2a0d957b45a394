/**
 * Time and calendar functions: time(), the UTC calendar fields of sample values (or of the step's time when called
 * without an argument), and the experimental start(), end(), range(), step(), min_of() and max_of().
 */
import type { Vector } from '../values.js';
import type { StepFunction } from './function-types.js';

function calendar(name: string, field: (d: Date) => number): StepFunction {
  return {
    name,
    kind: 'step',
    argTypes: ['vector'],
    variadic: 1,
    returnType: 'vector',
    evalStep: (args, ctx) => {
      // Prometheus truncates the seconds to an integer before reading the calendar.
      const at = (seconds: number): number => field(new Date(Math.trunc(seconds) * 1000));
      if (args.length === 0) return [{ labels: [], value: at(Math.floor(ctx.timeMs / 1000)), dropName: false }];
      return (args[0] as Vector).map((s) => ({ labels: s.labels, value: at(s.value), dropName: true }));
    },
  };
}

function queryScalar(
  name: string,
  seconds: (query: { startMs: number; endMs: number; stepMs: number }) => number,
): StepFunction {
  return {
    name,
    kind: 'step',
    argTypes: [],
    returnType: 'scalar',
    experimental: true,
    evalStep: (_, ctx) => seconds(ctx.query),
  };
}

function scalarPair(name: string, fn: (a: number, b: number) => number): StepFunction {
  return {
    name,
    kind: 'step',
    argTypes: ['scalar', 'scalar'],
    returnType: 'scalar',
    experimental: true,
    evalStep: ([a, b]) => fn(a as number, b as number),
  };
}

export const TIME_FUNCTIONS: readonly StepFunction[] = [
  queryScalar('start', (q) => q.startMs / 1000),
  queryScalar('end', (q) => q.endMs / 1000),
  queryScalar('range', (q) => (q.endMs - q.startMs) / 1000),
  queryScalar('step', (q) => q.stepMs / 1000),
  // Go's math.Min and math.Max: any NaN gives NaN, as Math.min and Math.max do.
  scalarPair('min_of', Math.min),
  scalarPair('max_of', Math.max),
  { name: 'time', kind: 'step', argTypes: [], returnType: 'scalar', evalStep: (_, ctx) => ctx.timeMs / 1000 },
  calendar('minute', (d) => d.getUTCMinutes()),
  calendar('hour', (d) => d.getUTCHours()),
  calendar('day_of_week', (d) => d.getUTCDay()),
  calendar('day_of_month', (d) => d.getUTCDate()),
  calendar('day_of_year', (d) => {
    const start = Date.UTC(d.getUTCFullYear(), 0, 1);
    return Math.floor((d.getTime() - start) / 86_400_000) + 1;
  }),
  calendar('days_in_month', (d) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate()),
  calendar('month', (d) => d.getUTCMonth() + 1),
  calendar('year', (d) => d.getUTCFullYear()),
];
