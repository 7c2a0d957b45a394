/**
 * The table of aggregators, KairosDB's wire names to definitions (`core/CoreModule.java` binds the same set), and
 * the one place a query's aggregator list is validated: names, parameters, and what may follow gaps.
 */
import { InputError } from '../../model/errors.js';
import type { AggregatorSpec } from '../../model/query.js';
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
  /** Field path, e.g. `aggregators[2]`. */
  readonly path: string;
}

export function compileAggregators(specs: readonly AggregatorSpec[], ctx: CompileContext): CompiledAggregator[] {
  let gapsAt: string | undefined;
  return specs.map((spec, i) => {
    const path = `aggregators[${i}]`;
    const definition = typeof spec.name === 'string' ? BY_NAME.get(spec.name) : undefined;
    if (definition === undefined) {
      throw new InputError(
        `${path}.name`,
        spec.name,
        `is not an aggregator (one of ${AGGREGATORS.map((a) => a.name).join(', ')})`,
      );
    }
    // KairosDB throws "No aggregator can be chained after gaps" at run time, from the first null point it reads.
    if (gapsAt !== undefined && !definition.nullSafe) {
      throw new InputError(
        `${path}.name`,
        spec.name,
        `cannot follow gaps (${gapsAt}): it would read the null points gaps adds`,
      );
    }
    if (definition === gaps) gapsAt = path;
    const params = new ParamReader(spec.params ?? {}, path, definition.name, definition.params);
    return { definition, stage: definition.compile(params, ctx), path };
  });
}
