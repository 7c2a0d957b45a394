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
  /** How the caller named the condition's fields (`tag`, `in`, `regex`, `notIn`); absent: the model's own words. */
  readonly fields?: FieldNames;
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
  /** How the caller named the aggregator and its parameters; absent: `aggregators[i]` and the wire names. */
  readonly fields?: FieldNames;
}

/** A group-by as the wire names it (`tag`, `time`, `value`, `bin`). */
export interface GroupBySpec {
  readonly name: string;
  readonly params: Readonly<Record<string, unknown>>;
  /** How the caller named the group-by and its parameters; absent: `group_by[i]` and the wire names. */
  readonly fields?: FieldNames;
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
  /**
   * How the caller named the query's own fields (`time_zone`, `tags`, `limit`, `order`); absent: the model's words
   * at the top level. Its items carry their own.
   */
  readonly fields?: FieldNames;
}

/**
 * How a caller named the fields of one part of a query, set by the front end's parser that built the part, so that
 * an error the engine finds later (it checks parameters when it compiles a query) names what the caller sent:
 * `query.metric[0].aggregators[1].align_sampling` from KairosDB's JSON, `aggregators[1].avg.alignSampling` from
 * GraphQL. The engine asks in the model's words; each parser answers in its own.
 */
export interface FieldNames {
  /** The part itself: `query.metric[0].aggregators[1]`, `aggregators[1].avg`; empty for a query's top level. */
  readonly path: string;
  /** The part's name as the caller spelled it (GraphQL's `leastSquares` for the wire's `least_squares`). */
  readonly name?: string;
  /**
   * A field of the part in the model's words (`align_sampling`, `in`), or within it the entry `key` of a map (a string)
   * or the item at `key` of a list (a number).
   */
  param(name: string, key?: string | number): string;
}

/** Field names in the model's own (KairosDB's wire) words under `path`: `path.name`, `path.name.key`, `path.name[2]`. */
export function wireFields(path: string): FieldNames {
  const at = path === '' ? '' : `${path}.`;
  return { path, param: (name, key) => `${at}${name}${within(key)}` };
}

/** How the query's caller named its own fields; the model's words at the top level when it did not say. */
export function queryFields(query: MetricQuery): FieldNames {
  return query.fields ?? TOP_LEVEL;
}

const TOP_LEVEL = wireFields('');

/** How a field path goes on into a map entry (`.key`) or a list item (`[2]`). */
export function within(key: string | number | undefined): string {
  return key === undefined ? '' : typeof key === 'number' ? `[${key}]` : `.${key}`;
}

export const DEFAULT_TIME_ZONE = 'UTC';
