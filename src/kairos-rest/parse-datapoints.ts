/**
 * KairosDB's ingest body (`POST /api/v1/datapoints`) → a validated WriteBatch: one object or an array of them, each
 * with `timestamp`/`time` + `value` and/or `datapoints: [[ts, value(, type)], …]`, KairosDB's type inference, and
 * the shared validateWrite, whose errors name the body's own fields, which each series carries
 * (`metric[0].datapoints[3].value`).
 */
import { dict } from '../lib/dict.js';
import { EPOCH_MS_RULE, isEpochMs } from '../lib/epoch-ms.js';
import { InputError } from '../model/errors.js';
import { detached, Interned, spelled } from '../model/interned.js';
import {
  validateWrite,
  type PointInput,
  type SeriesFields,
  type SeriesInput,
  type WriteLimits,
} from '../sources/write-validation.js';
import type { ValueType, WriteBatch } from '../model/write-batch.js';
import { JsonNumber, type JsonValue } from '../kairos-json/json-text.js';

const TYPES: readonly ValueType[] = ['long', 'double', 'string'];

/** `body` from parseJson with exactNumbers, so number text decides long or double. Series without points are left out. */
export function parseDatapoints(body: JsonValue, limits: WriteLimits): WriteBatch {
  const metrics = Array.isArray(body) ? body : isObject(body) ? [body] : undefined;
  if (metrics === undefined)
    throw new InputError('body', body, 'must be a metric object or an array of metric objects');
  const inputs: SeriesInput[] = [];
  for (const [i, metric] of metrics.entries()) collectMetric(metric, `metric[${i}]`, inputs);
  const batch = validateWrite(inputs, 'body', limits, readTimestamp);
  return { series: batch.series.filter((series) => series.timestamps.length > 0) };
}

/** Where a series' fields and points came from in the body, to name them in errors. */
interface Source {
  readonly path: string;
  /** For each point: its index in `datapoints`, or −1 for the object's own timestamp and value. */
  readonly points: number[];
  /** `time` or `timestamp`, whichever the object's own point used. */
  timeField: string;
}

/**
 * A series' fields as the metric object it came from names them: `name`, its own point or `datapoints[j]`. A class
 * rather than closures: one is made for every series of every request, and its methods are shared.
 */
class SourceFields implements SeriesFields {
  constructor(private readonly source: Source) {}

  field(name: 'metric' | 'tags' | 'ttl' | 'type', key?: string): string {
    return `${this.source.path}.${name === 'metric' ? 'name' : name}${key === undefined ? '' : `.${key}`}`;
  }

  point(index: number, name: 'timestamp' | 'value'): string {
    const ref = this.source.points[index]!;
    if (ref >= 0) return `${this.source.path}.datapoints[${ref}].${name}`;
    return `${this.source.path}.${name === 'timestamp' ? this.source.timeField : 'value'}`;
  }
}

/**
 * Each metric object becomes up to three series (one per type its points have) and, when it has no points at
 * all, one empty series so that its name and tags are still checked, as KairosDB checks them.
 */
function collectMetric(value: JsonValue, path: string, inputs: SeriesInput[]): void {
  if (!isObject(value))
    throw new InputError(path, value, 'must be an object with name, tags and timestamp and value, or datapoints');
  // The field's name is spelled out only for a type that is given (a few objects), never for the many without.
  const explicit = value.type === undefined || value.type === null ? undefined : readType(value.type, `${path}.type`);
  const metric = gsonString(value.name);
  const tags = readTags(value.tags);
  const ttlSeconds = gsonInt(value.ttl);
  let byType: ByType | undefined;

  // KairosDB takes `time` over `timestamp` when both are given.
  const timeField = value.time !== undefined && value.time !== null ? 'time' : 'timestamp';
  const timestamp = value[timeField];
  if (timestamp !== undefined && timestamp !== null) {
    if (value.value === undefined) throw new InputError(`${path}.value`, value.value, `is required with ${timeField}`);
    const type = explicit ?? inferType(value.value, path, -1);
    byType = addPoint(
      byType,
      path,
      type,
      { timestamp, value: pointValue(value.value, type, explicit !== undefined, path, -1) },
      -1,
      timeField,
    );
  } else if (value.value !== undefined && value.value !== null) {
    throw new InputError(`${path}.timestamp`, timestamp, 'is required with value');
  }

  const datapoints = value.datapoints;
  if (datapoints !== undefined && datapoints !== null) {
    if (!Array.isArray(datapoints))
      throw new InputError(
        `${path}.datapoints`,
        datapoints,
        'must be an array of [timestamp, value] or [timestamp, value, type]',
      );
    for (let j = 0; j < datapoints.length; j++) {
      const pair = datapoints[j]!;
      if (!Array.isArray(pair) || pair.length < 2 || pair.length > 3)
        throw new InputError(
          `${path}.datapoints[${j}]`,
          pair,
          'must be [timestamp, value] or [timestamp, value, type]',
        );
      const own = pair.length === 3 ? readType(pair[2], `${path}.datapoints[${j}].type`) : undefined;
      const given = own ?? explicit;
      const type = given ?? inferType(pair[1]!, path, j);
      byType = addPoint(
        byType,
        path,
        type,
        { timestamp: pair[0], value: pointValue(pair[1]!, type, given !== undefined, path, j) },
        j,
        'timestamp',
      );
    }
  }

  byType ??= [{ type: explicit ?? 'long', points: [], source: { path, points: [], timeField } }];
  // A literal: a spread of the shared fields followed by properties they lack is V8's slow way to make an object.
  for (const { type, points, source } of byType)
    inputs.push({ metric, tags, ttlSeconds, type, points, fields: new SourceFields(source) });
}

/**
 * A metric object's points by the type each is written as: three types at most, so a list (a Map for each metric object
 * of every request cost more than its points).
 */
type ByType = { readonly type: ValueType; readonly points: PointInput[]; readonly source: Source }[];

/**
 * Adds a point of the metric object at `path` to the series of its type; returns the list, made with its first series.
 * A function of the module, not a closure made for each metric object of every request.
 */
function addPoint(
  byType: ByType | undefined,
  path: string,
  type: ValueType,
  point: PointInput,
  ref: number,
  timeField: string,
): ByType {
  if (byType !== undefined)
    for (const series of byType) {
      if (series.type !== type) continue;
      series.points.push(point);
      series.source.points.push(ref);
      if (ref < 0) series.source.timeField = timeField;
      return byType;
    }
  // Arrays of one: a first push would reserve 17 slots.
  const series = { type, points: [point], source: { path, points: [ref], timeField } };
  if (byType === undefined) return [series];
  byType.push(series);
  return byType;
}

function readType(value: JsonValue | undefined, field: string): ValueType | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !(TYPES as readonly string[]).includes(value))
    throw new InputError(field, value, `must be one of ${TYPES.join(', ')}`);
  return value as ValueType;
}

/**
 * KairosDB's inference: a JSON number, or a string that looks like a decimal number, is a long when its text has
 * no '.', otherwise a double; anything else is a string. Errors name the value of point `index` of the metric object
 * at `path` (valueField).
 */
function inferType(value: JsonValue, path: string, index: number): ValueType {
  if (value === null) throw new InputError(valueField(path, index), value, 'must not be null');
  if (typeof value === 'number') return 'long';
  if (value instanceof JsonNumber) return value.text.includes('.') ? 'double' : 'long';
  if (typeof value === 'string') {
    // KairosDB refuses an empty value whatever the type; validateWrite says so for declared types.
    if (value === '') throw new InputError(valueField(path, index), value, 'must not be empty');
    return NUMERIC.test(value) ? (value.includes('.') ? 'double' : 'long') : 'string';
  }
  if (typeof value === 'boolean') return 'string';
  throw new InputError(valueField(path, index), value, 'must be a number, a string or a boolean');
}

/**
 * Where the value of point `index` of the metric object at `path` is: `metric[0].datapoints[3].value`, or the object's
 * own `metric[0].value` for index −1. Spelled out only for a point that fails, never for the many that pass.
 */
function valueField(path: string, index: number): string {
  return index < 0 ? `${path}.value` : `${path}.datapoints[${index}].value`;
}

/** Util.isNumber, without the oddities it lets through (".5.5", which KairosDB then fails to parse). */
const NUMERIC = /^[+-]?(?:\d+(?:\.\d+)?|\.\d+)$/;

/** The value as validateWrite takes it for `type`. */
function pointValue(value: JsonValue, type: ValueType, declared: boolean, path: string, index: number): unknown {
  if (declared && value === null) throw new InputError(valueField(path, index), value, 'must not be null');
  if (type === 'string') {
    // Gson's getAsString: numbers keep their text, booleans become "true" and "false".
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    if (value instanceof JsonNumber) return value.text;
    return value;
  }
  if (!(value instanceof JsonNumber)) return value;
  if (type === 'double') return Number(value.text);
  return longOf(value.text);
}

/**
 * A long from number text without a '.': an integer beyond 2^53 exactly, and an exponent as Java's BigDecimal
 * longValue reads it (1e3 is 1000, 15e-1 is 1). Text with a '.' goes on as a number, for validateWrite to refuse
 * unless it is whole.
 */
function longOf(text: string): number | bigint {
  const match = /^(-?)(\d+)(?:[eE]([+-]?\d+))?$/.exec(text);
  if (match === null) return Number(text);
  const [, sign, digits, exponentText] = match;
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  let whole: string;
  if (exponent === 0) {
    whole = digits!;
  } else if (exponent > 0) {
    // Beyond 20 digits it cannot be a long; validateWrite says so about the number.
    if (digits!.replace(/^0+/, '').length + exponent > 20) return Number(text);
    whole = digits! + '0'.repeat(exponent);
  } else {
    whole = -exponent >= digits!.length ? '0' : digits!.slice(0, exponent);
  }
  const value = BigInt(sign + whole);
  return value >= -MAX_SAFE && value <= MAX_SAFE ? Number(value) : value;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Timestamps: integer epoch ms as a JSON number (1.7e12 too, when whole) or a numeric string, as Gson reads a long,
 * under the one time rule of every front end (src/lib/epoch-ms.ts), which is narrower than Java's long.
 */
function readTimestamp(value: unknown, fields: SeriesFields, index: number): number {
  let ms: unknown = value;
  if (value instanceof JsonNumber) ms = Number(value.text);
  else if (typeof value === 'string' && /^[+-]?\d+$/.test(value)) ms = Number(value);
  if (!isEpochMs(ms)) throw new InputError(fields.point(index, 'timestamp'), value, EPOCH_MS_RULE);
  return ms;
}

/** Gson reads a JSON number or boolean into a String field as its text; tag values and names arrive that way too. */
function gsonString(value: JsonValue | undefined): unknown {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof JsonNumber) return value.text;
  return value;
}

/**
 * The tags of a metric object. Tags of string values are interned by their names and values in the body's order
 * (src/model/interned.ts): a KairosDB client names the same series in every request, and the write path validates
 * interned tags, spells their tag string and encodes their row key once. Others go on as sent, for validateWrite to
 * refuse by name.
 */
function readTags(value: JsonValue | undefined): unknown {
  if (!isObject(value)) return value;
  const names = Object.keys(value);
  let text = '';
  for (const name of names) {
    const tag = gsonString(value[name]);
    if (typeof tag !== 'string') return tagsOf(value, names);
    text += spelled(name) + spelled(tag);
  }
  return BY_TAG_TEXT.of(text, () => tagsOf(value, names));
}

function tagsOf(value: { [key: string]: JsonValue }, names: readonly string[]): Record<string, unknown> {
  const tags = dict<unknown>();
  for (const name of names) tags[name] = gsonString(value[name]);
  return tags;
}

/** Kept across requests: frozen, and cut loose from the body the names and values were read from. */
const BY_TAG_TEXT = new Interned<Record<string, unknown>>((tags) => {
  const kept = dict<unknown>();
  for (const name of Object.keys(tags)) kept[detached(name)] = detached(tags[name] as string);
  return Object.freeze(kept);
});

/**
 * Gson reads an int field from a JSON number or from a string that holds one (`"ttl": "3600"`), so KairosDB takes both;
 * anything else goes on to validateWrite as it is, to be refused there by name.
 */
function gsonInt(value: JsonValue | undefined): unknown {
  if (value instanceof JsonNumber) return Number(value.text);
  if (typeof value === 'string' && /^[+-]?\d+$/.test(value)) return Number(value);
  return value;
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber);
}
