/**
 * The one internal query model. GraphQL inputs and KairosDB REST JSON are both translated into it; the planner
 * and the engine only ever see this shape.
 */

/** Both ends inclusive, epoch ms (KairosDB's semantics). */
export interface TimeRange {
  readonly startMs: number;
  readonly endMs: number;
}

/**
 * One condition on a tag. With `in` or `regex`, a series passes when it has the tag and the value is one of `in` or
 * matches `regex` (the whole value, like KairosDB's `regex:` values); `notIn` excludes values (a series without the
 * tag passes a condition that only excludes); a condition with none of them requires the tag to exist.
 */
export interface TagCondition {
  readonly tag: string;
  readonly in?: readonly string[];
  readonly regex?: string;
  readonly notIn?: readonly string[];
}

/** Every condition must pass. */
export type TagFilter = readonly TagCondition[];

/**
 * An aggregator as the wire names it (`least_squares`, params in snake_case such as `align_sampling`).
 * The engine's registry parses and validates `params` once, so GraphQL and REST share one validation.
 */
export interface AggregatorSpec {
  readonly name: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/** A group-by as the wire names it (`tag`, `time`, `value`, `bin`). */
export interface GroupBySpec {
  readonly name: string;
  readonly params: Readonly<Record<string, unknown>>;
}

export interface MetricQuery {
  /** The source whose series to read (src/sources/): absent for the primary one. REST always reads the primary. */
  readonly source?: string;
  readonly metric: string;
  readonly range: TimeRange;
  readonly tags: TagFilter;
  readonly aggregators: readonly AggregatorSpec[];
  readonly groupBy: readonly GroupBySpec[];
  /** IANA zone for calendar arithmetic. Kairograph's default is UTC (KairosDB uses the JVM's zone). */
  readonly timeZone: string;
  /** Raw points kept after merging, before the aggregators; undefined or 0 means no limit. */
  readonly limit?: number;
  readonly order: 'asc' | 'desc';
  readonly excludeTags: boolean;
  readonly alias?: string;
}

export const DEFAULT_TIME_ZONE = 'UTC';
