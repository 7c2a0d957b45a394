/**
 * The machinery every range aggregator shares (`RangeAggregator.java`): the sampling parameters, the ranges, the
 * returned timestamp, and a table of per-range accumulators. Fed in stream order it closes each range as soon as a
 * point of another range arrives (one open range per group); fed series after series it keeps one slot per range
 * and emits them in order at the end, so memory follows groups × ranges, never points.
 */
import { isEpochMs } from '../../lib/epoch-ms.js';
import { InputError } from '../../model/errors.js';
import type { Slice } from '../../model/series.js';
import type { PointKind } from '../point-list.js';
import type { Extra, PointSink, RunSink } from '../points.js';
import type { ParamReader, ParamSpec } from '../params.js';
import { BOUNDARY_BEYOND_RULE, RangeGrid } from '../range-grid.js';
import { alignedAnchor } from '../../model/time-units.js';
import type { AggregatorDefinition, AggregatorStage, CompileContext, RangeOptions, StageEnv } from './aggregator.js';
import { growFloat64 } from './slots.js';

/** The parameters of `RangeAggregator`, by their KairosDB setter names. */
export const RANGE_PARAMS: readonly ParamSpec[] = [
  { name: 'sampling', type: 'duration', default: { value: 1, unit: 'milliseconds' } },
  { name: 'align_sampling', type: 'boolean', default: true },
  { name: 'align_start_time', type: 'boolean', default: false },
  { name: 'align_end_time', type: 'boolean', default: false },
  { name: 'start_time', type: 'epoch ms' },
  { name: 'end_time', type: 'epoch ms' },
  { name: 'time_zone', type: 'time zone' },
  { name: 'trim', type: 'boolean', default: false },
];

export function readRangeOptions(p: ParamReader, ctx: CompileContext): RangeOptions {
  const sampling = p.duration('sampling');
  const zone = p.has('time_zone') ? p.zone('time_zone') : ctx.zone;
  // KairosDB sets start_time from the query, then lets the aggregator's own start_time (and end_time) override it.
  const startMs = p.has('start_time') ? p.epochMs('start_time') : ctx.startMs;
  const endMs = p.has('end_time') ? p.epochMs('end_time') : ctx.endMs;
  const aligned = p.boolean('align_sampling');
  const anchorMs = aligned ? alignedAnchor(startMs, sampling.unit, zone) : startMs;
  // Aligning a start near the earliest time can move it before (the year of -8.64e15 began earlier); luxon says NaN.
  if (!isEpochMs(anchorMs)) throw new InputError(p.field('sampling'), p.value('sampling'), BOUNDARY_BEYOND_RULE);
  return {
    sampling,
    zone,
    anchorMs,
    alignStartTime: p.boolean('align_start_time'),
    alignEndTime: p.boolean('align_end_time'),
    walkStartMs: startMs,
    walkEndMs: Math.min(endMs, ctx.nowMs),
    trim: p.boolean('trim'),
    anchoredAtQueryStart: !aligned && !p.has('start_time'),
  };
}

/** One range's facts, handed to an accumulator when the range is emitted. */
export interface RangeInfo {
  /** KairosDB's returned time: the first point's (in stream order), or the range start/end when aligned. */
  readonly returnTs: number;
  /** Timestamps of the range's first and last points in stream order. */
  readonly firstTs: number;
  readonly lastTs: number;
  /** align_start_time or align_end_time is on: `last` then moves its point to returnTs. */
  readonly aligned: boolean;
}

/**
 * Per-range state for every open range, in slots. Slots are reused after `emit`; an accumulator grows its
 * arrays in `reset`, which always comes before a slot's first point.
 */
export interface RangeAccumulator {
  reset(slot: number): void;
  /** Points [from, to) of a slice, all in the slot's range, in stream order. */
  run(slot: number, slice: Slice, from: number, to: number, rank: number): void;
  point(slot: number, ts: number, kind: PointKind, num: number, extra: Extra, rank: number): void;
  emit(slot: number, range: RangeInfo, out: PointSink): void;
}

export interface RangeDefinition {
  readonly name: string;
  readonly accepts: 'number' | 'any';
  readonly output: 'number' | 'same';
  readonly nullSafe: boolean;
  /** Parameters beyond the shared range parameters. */
  readonly params?: readonly ParamSpec[];
  /** The accumulator's result per range ignores arrival order (see AggregatorStage.orderFree). */
  readonly orderFree: boolean;
  /** Reads the extra parameters; returns a factory of accumulators (one per group). */
  readonly accumulator: (p: ParamReader, options: RangeOptions) => (env: StageEnv) => RangeAccumulator;
}

/** A registry entry for a range aggregator. */
export function defineRange(def: RangeDefinition): AggregatorDefinition {
  return {
    name: def.name,
    accepts: def.accepts,
    output: def.output,
    nullSafe: def.nullSafe,
    params: [...RANGE_PARAMS, ...(def.params ?? [])],
    compile(p, ctx): AggregatorStage {
      const options = readRangeOptions(p, ctx);
      const make = def.accumulator(p, options);
      return {
        orderFree: def.orderFree,
        range: options,
        create: (env, next) => new RangeStage(options, make(env), env, next),
      };
    },
  };
}

/**
 * Runs one accumulator over the ranges of one group. Runs of a slice cost one range lookup each; only a point that
 * leaves the current range looks the range up again.
 */
class RangeStage implements RunSink {
  private readonly grid: RangeGrid;
  private readonly slotOfRange = new Map<number, number>();
  private minTs = new Float64Array(16);
  private maxTs = new Float64Array(16);
  /** Where each slot's range starts, for the observer. */
  private startOfSlot = new Float64Array(16);
  /** In stream mode: the range of slot 0, the only open one. */
  private openRange: number | undefined;
  /** Keeps every range until the end, as points of a range may still come from the next series. */
  private readonly table: boolean;

  constructor(
    private readonly options: RangeOptions,
    private readonly acc: RangeAccumulator,
    private readonly env: StageEnv,
    private readonly next: PointSink,
  ) {
    this.grid = new RangeGrid(options.anchorMs, options.sampling, options.zone);
    this.table = env.seriesMajor;
  }

  run(slice: Slice, from: number, to: number, rank: number): void {
    const ts = slice.timestamps;
    const grid = this.grid;
    let i = from;
    while (i < to) {
      const k = grid.locate(ts[i]!);
      const lo = grid.lo;
      const hi = grid.hi;
      let j = i + 1;
      while (j < to) {
        const t = ts[j]!;
        if (t < lo || t >= hi) break;
        j++;
      }
      const slot = this.slotFor(k, lo);
      const a = ts[i]!;
      const b = ts[j - 1]!;
      this.cover(slot, Math.min(a, b), Math.max(a, b));
      this.acc.run(slot, slice, i, j, rank);
      this.env.buckets?.segment(lo, hi, rank, j - i);
      i = j;
    }
  }

  point(ts: number, kind: PointKind, num: number, extra: Extra): void {
    const slot = this.slotFor(this.grid.locate(ts), this.grid.lo);
    this.cover(slot, ts, ts);
    this.acc.point(slot, ts, kind, num, extra, 0);
    this.env.buckets?.segment(this.grid.lo, this.grid.hi, 0, 1);
  }

  end(): void {
    if (this.table) {
      const ranges = [...this.slotOfRange.keys()].sort(this.env.order === 'asc' ? (a, b) => a - b : (a, b) => b - a);
      for (const k of ranges) this.emit(this.slotOfRange.get(k)!, k);
    } else if (this.openRange !== undefined) {
      this.emit(0, this.openRange);
    }
    this.next.end();
  }

  /** The slot of range k, which starts at `startMs`. */
  private slotFor(k: number, startMs: number): number {
    if (!this.table) {
      if (this.openRange !== k) {
        if (this.openRange !== undefined) this.emit(0, this.openRange);
        this.openRange = k;
        this.open(0, startMs);
      }
      return 0;
    }
    let slot = this.slotOfRange.get(k);
    if (slot === undefined) {
      slot = this.slotOfRange.size;
      this.slotOfRange.set(k, slot);
      this.open(slot, startMs);
    }
    return slot;
  }

  private open(slot: number, startMs: number): void {
    this.minTs = growFloat64(this.minTs, slot);
    this.maxTs = growFloat64(this.maxTs, slot);
    this.startOfSlot = growFloat64(this.startOfSlot, slot);
    this.startOfSlot[slot] = startMs;
    this.minTs[slot] = Number.POSITIVE_INFINITY;
    this.maxTs[slot] = Number.NEGATIVE_INFINITY;
    this.acc.reset(slot);
  }

  private cover(slot: number, lo: number, hi: number): void {
    if (lo < this.minTs[slot]!) this.minTs[slot] = lo;
    if (hi > this.maxTs[slot]!) this.maxTs[slot] = hi;
  }

  private emit(slot: number, k: number): void {
    const asc = this.env.order === 'asc';
    const firstTs = asc ? this.minTs[slot]! : this.maxTs[slot]!;
    const lastTs = asc ? this.maxTs[slot]! : this.minTs[slot]!;
    // align_start_time wins over align_end_time when both are set (RangeDataPointAggregator.getDataPointTime).
    const field = this.env.fields.param('sampling');
    const returnTs = this.options.alignStartTime
      ? this.grid.pointTimeOf(k, field)
      : this.options.alignEndTime
        ? this.grid.pointTimeOf(k + 1, field)
        : firstTs;
    const aligned = this.options.alignStartTime || this.options.alignEndTime;
    this.env.buckets?.emitting(this.startOfSlot[slot]!);
    this.acc.emit(slot, { returnTs, firstTs, lastTs, aligned }, this.next);
  }
}
