/**
 * Aggregators that work point by point in stream order (rate, diff, filter, ...): a registry helper and the base
 * class of their stages.
 */
import type { Slice } from '../../model/series.js';
import type { PointKind } from '../point-list.js';
import type { ParamReader, ParamSpec } from '../params.js';
import { pushPoints, type Extra, type PointSink, type RunSink } from '../points.js';
import type { AggregatorDefinition, CompileContext, StageEnv } from './aggregator.js';

export interface StreamDefinition {
  readonly name: string;
  readonly accepts: 'number' | 'any';
  readonly output: 'number' | 'same';
  readonly nullSafe: boolean;
  readonly params: readonly ParamSpec[];
  /** Reads the parameters; returns what builds the stage of one group. */
  readonly compile: (p: ParamReader, ctx: CompileContext) => (env: StageEnv, next: PointSink) => RunSink;
}

export function defineStream(def: StreamDefinition): AggregatorDefinition {
  return {
    name: def.name,
    accepts: def.accepts,
    output: def.output,
    nullSafe: def.nullSafe,
    params: def.params,
    compile(p, ctx) {
      return { orderFree: false, create: def.compile(p, ctx) };
    },
  };
}

/** A stage that takes points one at a time; runs of slices are split into points for it. */
export abstract class PointStage implements RunSink {
  constructor(protected readonly next: PointSink) {}

  abstract point(ts: number, kind: PointKind, num: number, extra: Extra): void;

  run(slice: Slice, from: number, to: number): void {
    pushPoints(slice, from, to, this);
  }

  end(): void {
    this.next.end();
  }
}
