/**
 * `rate` (RateAggregator): for consecutive points (t0,v0),(t1,v1) in stream order, (v1−v0)/(t1−t0) × the length of
 * one sampling starting at t0 (calendar-aware for days and longer, in the zone), at t1. Two points at the same time
 * have no rate: KairosDB throws; here it is an error that names the aggregator.
 */
import type { Zone } from 'luxon';
import { InputError } from '../../model/errors.js';
import type { PointKind } from '../point-list.js';
import type { ParamReader } from '../params.js';
import type { PointSink } from '../points.js';
import { durationFromMs, fixedLengthMs, type Duration } from '../../model/time-units.js';
import type { CompileContext, StageEnv } from './aggregator.js';
import { defineStream, PointStage } from './stream.js';

export const rate = defineStream({
  name: 'rate',
  accepts: 'number',
  output: 'number',
  nullSafe: false,
  params: [
    { name: 'sampling', type: 'duration' },
    { name: 'unit', type: 'unit' },
    { name: 'time_zone', type: 'time zone' },
  ],
  compile: (p, ctx) => {
    const per = readPer(p, ctx, p.lastGiven(['sampling', 'unit']));
    return (env, next) => new RateStage(per, env, next, 'rate', (v0, v1) => v1 - v0);
  },
});

/** What a rate is per: a sampling in a zone. */
export interface RatePer {
  readonly sampling: Duration;
  readonly zone: Zone;
}

/** `unit` means one of that unit; KairosDB applies whichever of sampling and unit comes last in the JSON. */
export function readPer(p: ParamReader, ctx: CompileContext, given: string | undefined): RatePer {
  const sampling: Duration =
    given === 'sampling'
      ? p.duration('sampling')
      : given === 'unit'
        ? { value: 1, unit: p.unit('unit') }
        : { value: 1, unit: 'MILLISECONDS' };
  return { sampling, zone: p.has('time_zone') ? p.zone('time_zone') : ctx.zone };
}

/** Rate and sampler: both look at consecutive pairs; `delta` is what they divide by the time between them. */
export class RateStage extends PointStage {
  private readonly fixedMs: number | undefined;
  private previousTs = Number.NaN;
  private previous = 0;

  constructor(
    private readonly per: RatePer,
    private readonly env: StageEnv,
    next: PointSink,
    private readonly name: string,
    private readonly delta: (v0: number, v1: number) => number,
  ) {
    super(next);
    this.fixedMs = fixedLengthMs(per.sampling, per.zone);
  }

  point(ts: number, _kind: PointKind, num: number): void {
    const t0 = this.previousTs;
    if (t0 === ts) {
      throw new InputError(
        this.env.fields.path,
        { timestamp: ts },
        `cannot compute ${this.name} between two points at the same time; precede ${this.name} with a range aggregator such as sum`,
      );
    }
    if (!Number.isNaN(t0)) {
      const unitMs = this.fixedMs ?? durationFromMs(t0, this.per.sampling, this.per.zone);
      this.next.point(ts, 'double', (this.delta(this.previous, num) / (ts - t0)) * unitMs, undefined);
    }
    this.previousTs = ts;
    this.previous = num;
  }
}
