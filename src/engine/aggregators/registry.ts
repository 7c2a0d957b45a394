/**
 * The table of aggregators, KairosDB's wire names to definitions (`core/CoreModule.java` binds the same set), and
 * the one place a query's aggregator list is validated: names, parameters, and what may follow gaps.
 */
import { InputError } from '../../model/errors.js';
import { wireFields, type AggregatorSpec, type FieldNames } from '../../model/query.js';
import { ParamReader } from '../params.js';
import type { AggregatorDefinition, AggregatorStage, CompileContext } from './aggregator.js';
import { avg } from './avg.js';
import { count } from './count.js';
import { dev } from './dev.js';
import { diff } from './diff.js';
import { div } from './div.js';
import { filter } from './filter.js';
import { first, last } from './first-last.js';
import { gaps } from './gaps.js';
import { leastSquares } from './least-squares.js';
import { max, min } from './extremes.js';
import { percentile } from './percentile.js';
import { rate } from './rate.js';
import { sampler } from './sampler.js';
import { saveAs } from './save-as.js';
import { scale } from './scale.js';
import { score } from './score.js';
import { sma } from './sma.js';
import { sum } from './sum.js';
import { trim } from './trim.js';

/** Every aggregator, sorted by wire name. */
export const AGGREGATORS: readonly AggregatorDefinition[] = [
  avg,
  count,
  dev,
  diff,
  div,
  filter,
  first,
  gaps,
  last,
  leastSquares,
  max,
  min,
  percentile,
  rate,
  sampler,
  saveAs,
  scale,
  score,
  sma,
  sum,
  trim,
];

const BY_NAME = new Map(AGGREGATORS.map((a) => [a.name, a]));

/** One validated aggregator of a query, at its position in the pipeline. */
export interface CompiledAggregator {
  readonly definition: AggregatorDefinition;
  readonly stage: AggregatorStage;
  /** How the caller named it (`aggregators[2]`) and its parameters, for the errors of its stage at run time. */
  readonly fields: FieldNames;
}

export function compileAggregators(specs: readonly AggregatorSpec[], ctx: CompileContext): CompiledAggregator[] {
  let gapsAt: string | undefined;
  return specs.map((spec, i) => {
    const fields = spec.fields ?? wireFields(`aggregators[${i}]`);
    const { path } = fields;
    const definition = typeof spec.name === 'string' ? BY_NAME.get(spec.name) : undefined;
    if (definition === undefined) {
      throw new InputError(
        fields.param('name'),
        spec.name,
        `is not an aggregator (one of ${AGGREGATORS.map((a) => a.name).join(', ')})`,
      );
    }
    // KairosDB throws "No aggregator can be chained after gaps" at run time, from the first null point it reads.
    if (gapsAt !== undefined && !definition.nullSafe) {
      throw new InputError(
        fields.param('name'),
        fields.name ?? spec.name,
        `cannot follow gaps (${gapsAt}): it would read the null points gaps adds`,
      );
    }
    if (definition === gaps) gapsAt = path;
    const params = new ParamReader(spec.params ?? {}, fields, definition.name, definition.params);
    return { definition, stage: definition.compile(params, ctx), fields };
  });
}
