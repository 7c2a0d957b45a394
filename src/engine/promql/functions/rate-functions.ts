/**
 * Counter and gauge rates over a range: rate/increase/delta extrapolate to the window's edges and (for counters)
 * add back resets; irate/idelta use the last two points; deriv and predict_linear fit a line.
 */
import type { RangeFunction, Window } from './function-types.js';
import { linearRegression } from './float-math.js';

function extrapolatedRate(w: Window, isCounter: boolean, isRate: boolean): number | undefined {
  const { timestampsMs: ts, values: vs, from, to } = w;
  const count = to - from;
  if (count < 2) return undefined;
  const firstT = ts[from]!;
  const lastT = ts[to - 1]!;
  const first = vs[from]!;
  let result = vs[to - 1]! - first;
  if (isCounter) for (let i = from + 1; i < to; i++) if (vs[i]! < vs[i - 1]!) result += vs[i - 1]!;
  let durationToStart = (firstT - w.rangeStartMs) / 1000;
  let durationToEnd = (w.rangeEndMs - lastT) / 1000;
  const sampledInterval = (lastT - firstT) / 1000;
  const averageBetween = sampledInterval / (count - 1);
  // Extrapolate to an edge only when it is within 110% of the average spacing; else assume the series starts or
  // ends half a spacing beyond its first or last point.
  const threshold = averageBetween * 1.1;
  if (durationToStart >= threshold) durationToStart = averageBetween / 2;
  if (isCounter) {
    // A counter cannot have been below zero: do not extrapolate further back than the point where it would be zero.
    let durationToZero = durationToStart;
    if (result > 0 && first >= 0) durationToZero = sampledInterval * (first / result);
    if (durationToZero < durationToStart) durationToStart = durationToZero;
  }
  if (durationToEnd >= threshold) durationToEnd = averageBetween / 2;
  let factor = sampledInterval === 0 ? 1 : (sampledInterval + durationToStart + durationToEnd) / sampledInterval;
  if (isRate) factor /= w.rangeMs / 1000;
  return result * factor;
}

function instantValue(w: Window, isRate: boolean): number | undefined {
  const { timestampsMs: ts, values: vs, from, to } = w;
  if (to - from < 2) return undefined;
  const last = vs[to - 1]!;
  const previous = vs[to - 2]!;
  const intervalMs = ts[to - 1]! - ts[to - 2]!;
  if (intervalMs === 0) return undefined;
  // A counter that went down was reset: the increase since the reset is the last value itself.
  let result = isRate && last < previous ? last : last - previous;
  if (isRate) result /= intervalMs / 1000;
  return result;
}

const matrix = ['matrix'] as const;

export const RATE_FUNCTIONS: readonly RangeFunction[] = [
  {
    name: 'rate',
    kind: 'range',
    argTypes: matrix,
    returnType: 'vector',
    evalWindow: (w) => extrapolatedRate(w, true, true),
  },
  {
    name: 'increase',
    kind: 'range',
    argTypes: matrix,
    returnType: 'vector',
    evalWindow: (w) => extrapolatedRate(w, true, false),
  },
  {
    name: 'delta',
    kind: 'range',
    argTypes: matrix,
    returnType: 'vector',
    evalWindow: (w) => extrapolatedRate(w, false, false),
  },
  { name: 'irate', kind: 'range', argTypes: matrix, returnType: 'vector', evalWindow: (w) => instantValue(w, true) },
  { name: 'idelta', kind: 'range', argTypes: matrix, returnType: 'vector', evalWindow: (w) => instantValue(w, false) },
  {
    name: 'deriv',
    kind: 'range',
    argTypes: matrix,
    returnType: 'vector',
    evalWindow: (w) =>
      w.to - w.from < 2
        ? undefined
        : linearRegression(w.timestampsMs, w.values, w.from, w.to, w.timestampsMs[w.from]!)[0],
  },
  {
    name: 'predict_linear',
    kind: 'range',
    argTypes: ['matrix', 'scalar'],
    returnType: 'vector',
    evalWindow: (w, [seconds], ctx) => {
      if (w.to - w.from < 2) return undefined;
      const [slope, intercept] = linearRegression(w.timestampsMs, w.values, w.from, w.to, ctx.timeMs);
      return slope * seconds! + intercept;
    },
  },
];
