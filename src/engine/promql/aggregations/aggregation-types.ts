/**
 * What an aggregation table entry is: a fold of one group's values at one step, or a selection of samples (topk and
 * kin), or count_values; each with the parameter type Prometheus requires.
 */
import type { Sample } from '../values.js';

interface AggregatorBase {
  readonly name: string;
  /** The type of the first argument, for the parametric operators. */
  readonly param?: 'scalar' | 'string';
  readonly experimental?: boolean;
}

/** Reduces a group's values at one step (in input order) to one value. */
export interface FoldAggregator extends AggregatorBase {
  readonly kind: 'fold';
  reduce(values: readonly number[], param: number): number;
}

/** Picks samples of a group at one step; they keep their labels. `param` is k or the ratio. */
export interface SelectAggregator extends AggregatorBase {
  readonly kind: 'select';
  select(samples: readonly Sample[], param: number): Sample[];
}

interface CountValuesAggregator extends AggregatorBase {
  readonly kind: 'count_values';
}

export type AggregatorDef = FoldAggregator | SelectAggregator | CountValuesAggregator;
