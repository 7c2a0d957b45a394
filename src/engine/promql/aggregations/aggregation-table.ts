/**
 * The aggregation operators by name, as the parser and the evaluator look them up: the folding ones, the selecting
 * ones and count_values.
 */
import type { AggregatorDef } from './aggregation-types.js';
import { FOLD_AGGREGATIONS } from './fold-aggregations.js';
import { SELECT_AGGREGATIONS } from './select-aggregations.js';

const ALL: readonly AggregatorDef[] = [
  ...FOLD_AGGREGATIONS,
  ...SELECT_AGGREGATIONS,
  { name: 'count_values', kind: 'count_values', param: 'string' },
];

export const AGGREGATIONS: ReadonlyMap<string, AggregatorDef> = new Map(ALL.map((a) => [a.name, a]));

export const AGGREGATORS: ReadonlySet<string> = new Set(AGGREGATIONS.keys());

export const PARAMETRIC_AGGREGATORS: ReadonlySet<string> = new Set(
  ALL.filter((a) => a.param !== undefined).map((a) => a.name),
);
