/**
 * What an aggregator is to the engine: a definition in the registry (wire name, parameter table, which group
 * types it runs on) that compiles validated parameters into a stage, and a stage that builds one streaming
 * operator per result group.
 */
import type { FieldNames } from '../../model/query.js';
import type { Zone } from 'luxon';
import type { KeyLimits } from '../../model/key-limits.js';
import type { WriteBatch } from '../../model/write-batch.js';
import type { ParamReader, ParamSpec } from '../params.js';
import type { Order, PointSink, RunSink } from '../points.js';
import type { Duration } from '../../model/time-units.js';

/** KairosDB's group types: what the `type` group-by reports and what `canAggregate` checks. */
export type GroupType = 'number' | 'text' | 'complex';

/** What compiling an aggregator may depend on: the query around it. */
export interface CompileContext {
  readonly metric: string;
  readonly startMs: number;
  readonly endMs: number;
  /** The request's clock: gaps stop at min(end, now). */
  readonly nowMs: number;
  /** The query's zone; a range aggregator's own `time_zone` overrides it. */
  readonly zone: Zone;
  /** Tags named by the query's tag group-by (save_as keeps those with one value). */
  readonly tagGroupBy: readonly string[];
  /**
   * The key limits of the source save_as writes to (the query's). Absent where a query is compiled to be planned and
   * never run (the roll-up planner reads only its ranges): save_as then checks its metric name's form alone, and a
   * stage made from it refuses to run.
   */
  readonly limits?: KeyLimits;
}

export interface AggregatorDefinition {
  readonly name: string;
  /** The group types it runs on; KairosDB silently skips it for the others (`canAggregate`). */
  readonly accepts: 'number' | 'any';
  /** The group type it produces: always number, or the type it was given. */
  readonly output: 'number' | 'same';
  /** Reads no point values, so it may follow the null points of gaps. */
  readonly nullSafe: boolean;
  /** The wire parameters it takes (snake_case). */
  readonly params: readonly ParamSpec[];
  compile(params: ParamReader, ctx: CompileContext): AggregatorStage;
}

/** An aggregator with validated parameters, ready to run on any number of groups. */
export interface AggregatorStage {
  /**
   * True for range aggregators whose result per range does not depend on the order points arrive in, so series
   * may be scanned one after another instead of merged point by point.
   */
  readonly orderFree: boolean;
  /** A range aggregator's ranges (absent for stream aggregators): the results cache keys its buckets by them. */
  readonly range?: RangeOptions;
  create(env: StageEnv, next: PointSink): RunSink;
}

/**
 * Watches a range stage fed series after series (the results cache's tap, engine/bucket-cache.ts): which points went
 * into which range, from which series, and which range each emitted point belongs to.
 */
export interface BucketObserver {
  /** `points` points of the series of `rank` fell into the range [startMs, endMs). */
  segment(startMs: number, endMs: number, rank: number, points: number): void;
  /** The range starting at `startMs` emits its points next. */
  emitting(startMs: number): void;
}

/** What a stage learns about the group it runs for. */
export interface StageEnv {
  readonly order: Order;
  /**
   * The stage is first and is fed several series one after another, or one series ascending for a desc query, not
   * one merged stream (only order-free stages are): points of one range then arrive at different times.
   */
  readonly seriesMajor: boolean;
  /** How the caller named the aggregator (`aggregators[2]`) and its parameters, for errors raised while running. */
  readonly fields: FieldNames;
  readonly metric: string;
  /** Union of tag values of the series merged into the group; complete once the group's points are all read. */
  readonly tags: () => Readonly<Record<string, readonly string[]>>;
  /**
   * Accounts for one point a stage makes up (gaps' null points) against the points-returned budget: false means
   * stop generating (the budget truncates); throws when the budget is exceeded and the query asked for errors.
   */
  readonly generate: () => boolean;
  /** Writes of save_as; the engine performs them when the group ends. */
  readonly save: (batch: WriteBatch) => void;
  /** Given to the first stage of a group whose ranges the results cache keeps. */
  readonly buckets?: BucketObserver;
}

/** A range aggregator's ranges, as its parameters and the query set them (range.ts reads them). */
export interface RangeOptions {
  readonly sampling: Duration;
  readonly zone: Zone;
  /** Range 0 starts here: the start time, aligned to the unit when align_sampling is on. */
  readonly anchorMs: number;
  readonly alignStartTime: boolean;
  readonly alignEndTime: boolean;
  /** Where the exhaustive walk of gaps starts and stops (the query's range, the end clamped to now). */
  readonly walkStartMs: number;
  readonly walkEndMs: number;
  readonly trim: boolean;
  /** align_sampling is off and no start_time is given: the ranges start at the query's start and move with it. */
  readonly anchoredAtQueryStart: boolean;
}
