/**
 * Validates points from any front end into a WriteBatch before anything is written, so a bad point (or a name or
 * series too large for the store's keys) rejects the whole batch with an error that names its field and value.
 */
import { dict } from '../lib/dict.js';
import { EPOCH_MS_RULE, isEpochMs } from '../lib/epoch-ms.js';
import { InputError } from '../model/errors.js';
import { FrozenMemo } from '../model/interned.js';
import { sortedTagNames } from '../model/tag-string.js';
import { datastoreTypeOf, modifiedUtf8Length } from '../store/format/index.js';
import { checkMetricName, checkSeriesKeys } from './key-limits.js';
import type { SeriesWrite, ValueType, WriteBatch } from '../model/write-batch.js';
import type { KeyLimits } from '../model/key-limits.js';
import type { Tags } from '../model/series.js';

export interface PointInput {
  readonly timestamp: unknown;
  readonly value: unknown;
}

export interface SeriesInput {
  readonly metric: unknown;
  readonly tags: unknown;
  readonly type: ValueType;
  readonly ttlSeconds?: unknown;
  readonly points: readonly PointInput[];
  /** How the caller named the series' fields, set by the front end that read it; absent: `series[2].metric` etc. */
  readonly fields?: SeriesFields;
}

/**
 * How a caller named the fields of one series, so that a write's errors name what the client sent: `[3].datapoints[1]`
 * in KairosDB's body, `series[2].tags[1].value` in GraphQL. Validation asks in the model's words.
 */
export interface SeriesFields {
  /** `metric`, `tags` (or the entry `key` of the tags), `ttl` or `type`. */
  field(name: 'metric' | 'tags' | 'ttl' | 'type', key?: string): string;
  /** The `timestamp` or `value` of point `index` (the series' own numbering). */
  point(index: number, name: 'timestamp' | 'value'): string;
  /** The tags as the caller sent them, shown by errors about the tags as a whole (GraphQL's list of entries). */
  readonly tagsSent?: unknown;
}

/** The model's own names under `path`: `path.metric`, `path.tags.host`, `path.points[3].value`. */
function wireSeriesFields(path: string): SeriesFields {
  return {
    field: (name, key) => (key === undefined ? `${path}.${name}` : `${path}.${name}.${key}`),
    point: (index, name) => `${path}.points[${index}].${name}`,
  };
}

export interface WriteLimits {
  /** Most points one batch may carry. */
  readonly maxPoints: number;
  /**
   * Series without tags: clients may not write them (KairosDB's ingest refuses them), but a query's `save_as` may,
   * as KairosDB's does with add_saved_from false and no tag group-by. Both servers read such a series back.
   */
  readonly allowNoTags?: boolean;
  /** What the target store's keys hold (`store.limits`). */
  readonly keys: KeyLimits;
}

/**
 * Reads a point's timestamp as the front end accepts it (GraphQL's Time, KairosDB's epoch ms) and throws an
 * InputError naming `fields.point(index, 'timestamp')`. The field comes in pieces so that it is spelled out only for
 * a point that fails, never for the many that pass.
 */
export type TimestampReader = (value: unknown, fields: SeriesFields, index: number) => number;

/** Cassandra's MAX_TTL (20 years); KairosDB drops points with a longer TTL (#621), we reject them. */
export const MAX_TTL_SECONDS = 630_720_000;
const MAX_STRING_BYTES = 65_535;
const MIN_LONG = -(2n ** 63n);
const MAX_LONG = 2n ** 63n - 1n;

/**
 * `path` names the list in the caller's vocabulary (`series` in GraphQL), for its own errors and those of a series
 * without fields of its own (`series[2].points[0].value`).
 */
export function validateWrite(
  input: readonly SeriesInput[],
  path: string,
  limits: WriteLimits,
  readTimestamp: TimestampReader = epochMillis,
): WriteBatch {
  let total = 0;
  for (const series of input) total += series.points.length;
  if (total > limits.maxPoints)
    throw new InputError(path, total, `must hold at most ${limits.maxPoints} points in one batch`);
  return {
    series: input.map((series, i) =>
      validateSeries(series, series.fields ?? wireSeriesFields(`${path}[${i}]`), limits, readTimestamp),
    ),
  };
}

function validateSeries(
  series: SeriesInput,
  fields: SeriesFields,
  limits: WriteLimits,
  readTimestamp: TimestampReader,
): SeriesWrite {
  const { keys } = limits;
  // A field is named only for an error (UNNAMED until then): spelling it out for every series costs more than the check.
  let metric: string;
  try {
    metric = validateMetricName(series.metric, UNNAMED, keys);
  } catch (error) {
    throw named(error, fields.field('metric'));
  }
  const tags = validateTags(series.tags, fields, limits.allowNoTags === true);
  try {
    checkSeriesKeys(keys, metric, datastoreTypeOf(series.type), tags, UNNAMED);
  } catch (error) {
    throw named(error, fields.field('tags'), fields.tagsSent);
  }
  let ttlSeconds: number;
  try {
    ttlSeconds = validateTtl(series.ttlSeconds, UNNAMED);
  } catch (error) {
    throw named(error, fields.field('ttl'));
  }
  const doublesOnly = keys.doublesOnly;
  if (doublesOnly !== undefined && series.type === 'string')
    throw new InputError(
      fields.field('type'),
      series.type,
      `must be double or long: ${doublesOnly} values are doubles`,
    );
  const parse = VALUE_PARSERS[series.type];
  const points = series.points;
  const timestamps: number[] = new Array(points.length);
  const values: (number | bigint | string)[] = new Array(points.length);
  for (let j = 0; j < points.length; j++) {
    const point = points[j]!;
    timestamps[j] = readTimestamp(point.timestamp, fields, j);
    if (keys.minTimestampMs !== undefined && timestamps[j]! < keys.minTimestampMs) {
      throw new InputError(
        fields.point(j, 'timestamp'),
        point.timestamp,
        `must be at least ${keys.minTimestampMs}: ${keys.store} partitions start there`,
      );
    }
    values[j] = parse(point.value, fields, j);
    // A long goes into a double column: only one the double holds exactly.
    if (doublesOnly !== undefined && typeof values[j] === 'bigint') {
      throw new InputError(
        fields.point(j, 'value'),
        point.value,
        `must be within ±2^53 to be held exactly: ${doublesOnly} values are doubles`,
      );
    }
  }
  return { metric, tags, type: series.type, ttlSeconds, timestamps, values };
}

const UNNAMED = '';

/** `error` naming `field`, and showing `sent` for the value where the caller sent it in another form. */
function named(error: unknown, field: string, sent?: unknown): unknown {
  return error instanceof InputError ? new InputError(field, sent ?? error.value, error.reason) : error;
}

/**
 * A metric name to write, query or delete: `keys` are the store's limits, so a name no key of the store could hold
 * is refused up front on every path (it can never have been written).
 */
/** A metric name's form, and where `keys` are given, that they hold it. */
export function validateMetricName(value: unknown, field: string, keys: KeyLimits | undefined): string {
  if (typeof value !== 'string') throw new InputError(field, value, 'must be a string');
  if (value.length === 0) throw new InputError(field, value, 'must not be empty');
  // The row key ends the metric name at the first 0x00 byte (reference §2.1).
  if (value.includes('\u0000')) throw new InputError(field, value, 'must not contain the character U+0000');
  if (keys !== undefined) checkMetricName(keys, value, field);
  return value;
}

/** Frozen tags validated before (a front end's interned series, src/model/interned.ts) → the frozen tags they gave. */
const VALIDATED_TAGS = new FrozenMemo<object, Tags>();

function validateTags(value: unknown, fields: SeriesFields, allowNoTags: boolean): Tags {
  const frozen = typeof value === 'object' && value !== null && Object.isFrozen(value);
  if (frozen) {
    const known = VALIDATED_TAGS.get(value);
    if (known !== undefined) return known;
  }
  const tags = checkTags(value, fields, allowNoTags);
  // Empty tags are checked each time, at no cost: a path that allows none must not vouch for them to one that refuses them.
  if (frozen && Object.keys(tags).length > 0) {
    // Tags a front end made as checkTags makes them are their own validation: what the write path derives from them
    // is then held with this entry (FrozenMemo).
    const validated = isSameDict(value, tags) ? (value as Tags) : Object.freeze(tags);
    VALIDATED_TAGS.set(value, validated);
    return validated;
  }
  return tags;
}

/** Whether `sent` is a record without a prototype of the same entries as `tags`, in the same order. */
function isSameDict(sent: object, tags: Tags): boolean {
  if (Object.getPrototypeOf(sent) !== null) return false;
  const record = sent as Readonly<Record<string, unknown>>;
  const names = Object.keys(sent);
  const checked = Object.keys(tags);
  return (
    names.length === checked.length && names.every((name, i) => name === checked[i] && record[name] === tags[name])
  );
}

function checkTags(value: unknown, fields: SeriesFields, allowNoTags: boolean): Tags {
  const field = fields.field('tags');
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InputError(field, fields.tagsSent ?? value, 'must be an object of tag names to values');
  const sent = value as Readonly<Record<string, unknown>>;
  const names = sortedTagNames(sent);
  // KairosDB rejects series without tags at ingest.
  if (names.length === 0 && !allowNoTags)
    throw new InputError(field, fields.tagsSent ?? value, 'must hold at least one tag');
  const tags = dict<string>();
  for (const name of names) {
    const tagValue = sent[name];
    if (name.length === 0) throw new InputError(field, name, 'must not have an empty tag name');
    if (typeof tagValue !== 'string') throw new InputError(fields.field('tags', name), tagValue, 'must be a string');
    if (tagValue.length === 0) throw new InputError(fields.field('tags', name), tagValue, 'must not be empty');
    tags[name] = tagValue;
  }
  return tags;
}

function validateTtl(value: unknown, field: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_TTL_SECONDS) {
    throw new InputError(field, value, `must be a whole number of seconds from 0 to ${MAX_TTL_SECONDS}`);
  }
  return value;
}

/** The default reader: `timestamp`, a number of epoch milliseconds under the one time rule (src/lib/epoch-ms.ts). */
function epochMillis(value: unknown, fields: SeriesFields, index: number): number {
  if (!isEpochMs(value)) throw new InputError(fields.point(index, 'timestamp'), value, EPOCH_MS_RULE);
  return value;
}

/** A point's value for its series' type; errors name the point's value as the caller named it. */
const VALUE_PARSERS: Record<
  ValueType,
  (value: unknown, fields: SeriesFields, index: number) => number | bigint | string
> = {
  long(value, fields, index) {
    if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
    let integer: bigint;
    if (typeof value === 'number' && Number.isInteger(value)) integer = BigInt(value);
    else if (typeof value === 'bigint') integer = value;
    else if (typeof value === 'string' && /^[+-]?\d+$/.test(value.trim())) integer = BigInt(value.trim());
    else throw new InputError(fields.point(index, 'value'), value, 'must be an integer for type long');
    if (integer < MIN_LONG || integer > MAX_LONG)
      throw new InputError(fields.point(index, 'value'), value, 'must fit in a signed 64-bit long');
    return integer >= -MAX_SAFE && integer <= MAX_SAFE ? Number(integer) : integer;
  },
  double(value, fields, index) {
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isFinite(number))
      throw new InputError(fields.point(index, 'value'), value, 'must be a finite number for type double');
    return number;
  },
  string(value, fields, index) {
    if (typeof value !== 'string')
      throw new InputError(fields.point(index, 'value'), value, 'must be a string for type string');
    // KairosDB 1.3 refuses an empty value whatever its type ("value may not be empty"), so no store holds one.
    if (value === '') throw new InputError(fields.point(index, 'value'), value, 'must not be empty');
    const bytes = modifiedUtf8Length(value);
    if (bytes > MAX_STRING_BYTES)
      throw new InputError(
        fields.point(index, 'value'),
        `${value.slice(0, 20)}…`,
        `must encode to at most ${MAX_STRING_BYTES} bytes (it is ${bytes})`,
      );
    return value;
  },
};

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
