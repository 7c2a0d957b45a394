/**
 * What a function table entry is: Prometheus's signature (argument and return types, variadic count, experimental
 * flag) and one of two ways to evaluate: over each series' window of a range argument, or over each step's values.
 */
import type { Annotations } from '../annotations.js';
import type { Expr, ValueType } from '../ast.js';
import type { Labels } from '../labels.js';
import type { StepSeries, Vector } from '../values.js';

interface Signature {
  readonly name: string;
  readonly argTypes: readonly ValueType[];
  /** 0: exactly argTypes; n > 0: up to n of the last type may be left out; -1: the last repeats without bound. */
  readonly variadic?: number;
  readonly returnType: ValueType;
  readonly experimental?: boolean;
}

/** The points of one series inside (rangeStart, rangeEnd], stale markers left out; indices [from, to). */
export interface Window {
  readonly timestampsMs: Float64Array;
  readonly values: Float64Array;
  readonly from: number;
  readonly to: number;
  readonly rangeStartMs: number;
  readonly rangeEndMs: number;
  readonly rangeMs: number;
  readonly labels: Labels;
}

export interface FunctionContext {
  /** The step's evaluation time. */
  readonly timeMs: number;
  readonly args: readonly Expr[];
  readonly call: Expr;
  readonly annotations: Annotations;
  /** Whether this evaluation spans more than one time (sort warns there). */
  readonly rangeQuery: boolean;
  /** The top-level query's range and step (0 for instant queries): start(), end(), range(), step(). */
  readonly query: { readonly startMs: number; readonly endMs: number; readonly stepMs: number };
}

/** Evaluated per series and step over the window of the range argument; scalar arguments come per step. */
export interface RangeFunction extends Signature {
  readonly kind: 'range';
  /** last_over_time and first_over_time keep `__name__`; every other one drops it. */
  readonly keepsName?: boolean;
  evalWindow(window: Window, scalars: readonly number[], ctx: FunctionContext): number | undefined;
}

export type StepArg = Vector | number | string;

/** Evaluated per step over every argument's value at that step. */
export interface StepFunction extends Signature {
  readonly kind: 'step';
  evalStep(args: readonly StepArg[], ctx: FunctionContext): Vector | number;
}

/**
 * Evaluated once over whole series (label_replace, label_join): they change labels only, so they see every step at
 * once and merge series that end up with one label set.
 */
export interface SeriesFunction extends Signature {
  readonly kind: 'series';
  evalSeries(series: StepSeries[], strings: readonly string[]): StepSeries[];
}

export type FunctionDef = RangeFunction | StepFunction | SeriesFunction;

/** Maps each sample's value; the result drops the metric name, as every such function does. */
export function mapSamples(vector: Vector, fn: (value: number) => number): Vector {
  return vector.map((s) => ({ labels: s.labels, value: fn(s.value), dropName: true }));
}
