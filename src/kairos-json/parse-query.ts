/**
 * The one translation of a KairosDB query body (`/datapoints/query`, `/query/tags`, `/datapoints/delete`) into the
 * query model, one MetricQuery per entry of `metrics`, in request order. The REST API and the golden suites use it.
 * It checks the body's shape, times and tag filters with KairosDB's field paths; aggregators and group-bys pass
 * through in wire form for the engine's registries to validate.
 */
import { EPOCH_MS_RULE, isEpochMs, MAX_EPOCH_MS } from '../lib/epoch-ms.js';
import { InputError } from '../model/errors.js';
import { readInteger, readZone } from '../engine/params.js';
import { parseTimeUnit, TIME_UNITS } from '../model/time-units.js';
import {
  DEFAULT_TIME_ZONE,
  wireFields,
  type AggregatorSpec,
  type FieldNames,
  type MetricQuery,
  type TagCondition,
} from '../model/query.js';
import { compileTagFilter } from '../model/tag-filter.js';
import { plusUtc } from '../model/time.js';
import { validateMetricName } from '../sources/write-validation.js';
import type { KeyLimits } from '../model/key-limits.js';

/**
 * Where a query without an end stops. KairosDB reads to Long.MAX_VALUE (so future points are returned too); nothing
 * later than this is a time a client can write (src/lib/epoch-ms.ts).
 */
export const OPEN_END_MS = MAX_EPOCH_MS;

/** KairosDB's prefix for a tag value that is a regular expression (`kairosdb.queries.regex_prefix`). */
const REGEX_PREFIX = 'regex:';

/**
 * `nowMs` anchors start_relative and end_relative; `limits` are the store's, which metric names must fit. `at` is where
 * the query sits in the caller's JSON (`query` for the REST API, `rollups[0].query` in a roll-up task): every part of
 * the model it returns carries its field names under it, so the engine's errors name what the client sent.
 */
export function parseKairosQuery(body: unknown, nowMs: number, limits: KeyLimits, at = 'query'): MetricQuery[] {
  if (!isObject(body))
    throw new InputError(at, body, 'must be a JSON object with start_absolute or start_relative, and metrics');
  const startMs = readStart(body, nowMs, at);
  const end = readEnd(body, nowMs, at);
  if (end !== undefined && end.ms < startMs)
    throw new InputError(end.field, end.raw, `must not be before the start time ${startMs}`);
  const timeZone = readTimeZone(body.time_zone, `${at}.time_zone`);
  if (body.cache_time !== undefined && body.cache_time !== null)
    readInteger(body.cache_time, `${at}.cache_time`, 0, 2_147_483_647);
  refusePlugins(body.plugins, `${at}.plugins`);
  const metrics = body.metrics;
  if (!Array.isArray(metrics) || metrics.length === 0)
    throw new InputError(`${at}.metrics`, metrics, 'must be a non-empty array of metric queries');
  const range = { startMs, endMs: end?.ms ?? OPEN_END_MS };
  return metrics.map((metric, i) => readMetric(metric, `${at}.metric[${i}]`, range, timeZone, limits));
}

/** `start_absolute` wins over `start_relative`, as in KairosDB. */
function readStart(body: Record<string, unknown>, nowMs: number, at: string): number {
  if (body.start_absolute !== undefined && body.start_absolute !== null)
    return readEpochMs(body.start_absolute, `${at}.start_absolute`);
  if (body.start_relative !== undefined && body.start_relative !== null)
    return readRelative(body.start_relative, `${at}.start_relative`, nowMs);
  throw new InputError(`${at}.start_absolute`, body.start_absolute, `or ${at}.start_relative must be set`);
}

function readEnd(
  body: Record<string, unknown>,
  nowMs: number,
  at: string,
): { ms: number; field: string; raw: unknown } | undefined {
  for (const [key, read] of [
    ['end_absolute', (value: unknown, field: string) => readEpochMs(value, field)],
    ['end_relative', (value: unknown, field: string) => readRelative(value, field, nowMs)],
  ] as const) {
    const raw = body[key];
    if (raw === undefined || raw === null) continue;
    const field = `${at}.${key}`;
    return { ms: read(raw, field), field, raw };
  }
  return undefined;
}

/** A JSON number or, as Gson reads a long, a numeric string; under the one time rule (src/lib/epoch-ms.ts). */
function readEpochMs(value: unknown, field: string): number {
  const ms = typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : value;
  if (!isEpochMs(ms)) throw new InputError(field, value, EPOCH_MS_RULE);
  return ms;
}

/** `now − value units` on a UTC calendar (`plusUtc`): both start_relative and end_relative count back. */
function readRelative(value: unknown, field: string, nowMs: number): number {
  if (!isObject(value)) throw new InputError(field, value, 'must be an object {value, unit}');
  for (const key of Object.keys(value)) {
    if (key !== 'value' && key !== 'unit')
      throw new InputError(`${field}.${key}`, value[key], 'is not a field of {value, unit}');
  }
  const amount = readInteger(value.value, `${field}.value`, 0, 2_147_483_647);
  const unit = typeof value.unit === 'string' ? parseTimeUnit(value.unit) : undefined;
  if (unit === undefined)
    throw new InputError(
      `${field}.unit`,
      value.unit,
      `must be one of ${TIME_UNITS.map((u) => u.toLowerCase()).join(', ')}`,
    );
  // Beyond the rule's range luxon answers NaN; the time a relative time names is held to the same rule.
  const ms = plusUtc(nowMs, -amount, unit);
  if (!isEpochMs(ms)) throw new InputError(field, value, EPOCH_MS_RULE);
  return ms;
}

/** Absent or null means the model's default (UTC, where KairosDB would take the JVM's zone); "" means UTC. */
function readTimeZone(value: unknown, field: string): string {
  if (value === undefined || value === null) return DEFAULT_TIME_ZONE;
  readZone(value, field);
  return value as string;
}

/** KairosDB's query plugins are Java classes loaded into the server; Kairograph has none. An empty list is fine. */
function refusePlugins(value: unknown, field: string): void {
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) return;
  throw new InputError(field, value, 'are not supported: Kairograph has no query plugins');
}

function readMetric(
  value: unknown,
  path: string,
  range: MetricQuery['range'],
  timeZone: string,
  limits: KeyLimits,
): MetricQuery {
  if (!isObject(value)) throw new InputError(path, value, 'must be an object with a name');
  const metric = validateMetricName(value.name, `${path}.name`, limits);
  refusePlugins(value.plugins, `${path}.plugins`);
  const limit =
    value.limit === undefined || value.limit === null ? 0 : readInteger(value.limit, `${path}.limit`, 0, 2_147_483_647);
  return {
    metric,
    range,
    tags: readTags(value.tags, `${path}.tags`),
    aggregators: readNamedList(value.aggregators, `${path}.aggregators`),
    groupBy: readNamedList(value.group_by, `${path}.group_by`),
    timeZone,
    ...(limit > 0 ? { limit } : {}),
    order: readOrder(value.order, `${path}.order`),
    excludeTags: readBoolean(value.exclude_tags, `${path}.exclude_tags`),
    ...(value.alias !== undefined && value.alias !== null ? { alias: readString(value.alias, `${path}.alias`) } : {}),
    fields: metricFields(path),
  };
}

/** The query's own fields under its place in the JSON; the model's `metric` is KairosDB's `name`. */
function metricFields(path: string): FieldNames {
  const wire = wireFields(path);
  return { path, param: (name, key) => wire.param(name === 'metric' ? 'name' : name, key) };
}

/**
 * `{"host": "a"}` or `{"host": ["a", "regex:b.*"]}`. A series passes a tag when its value is one of the literal
 * values or matches one of the regular expressions (KairosDB keeps only one regex per tag; several are OR-ed here).
 * An empty list filters nothing, as KairosDB's multimap then has no entry for the tag.
 */
function readTags(value: unknown, path: string): TagCondition[] {
  if (value === undefined || value === null) return [];
  if (!isObject(value))
    throw new InputError(path, value, 'must be an object of tag names to a value or a list of values');
  const conditions: TagCondition[] = [];
  for (const [tag, raw] of Object.entries(value)) {
    if (tag === '') throw new InputError(path, tag, 'must not have an empty tag name');
    const field = `${path}.${tag}`;
    const list = typeof raw === 'string' ? [raw] : raw;
    if (!Array.isArray(list)) throw new InputError(field, raw, 'must be a string or a list of strings');
    const literals: string[] = [];
    const patterns: string[] = [];
    list.forEach((item: unknown, j) => {
      const itemField = typeof raw === 'string' ? field : `${field}[${j}]`;
      if (typeof item !== 'string' || item === '') throw new InputError(itemField, item, 'must be a non-empty string');
      if (!item.startsWith(REGEX_PREFIX)) {
        literals.push(item);
        return;
      }
      const pattern = item.slice(REGEX_PREFIX.length);
      compileTagFilter([{ tag, regex: pattern, fields: entryFields(itemField) }], path);
      patterns.push(pattern);
    });
    if (list.length === 0) continue;
    conditions.push({
      tag,
      fields: entryFields(field),
      ...(literals.length > 0 ? { in: literals } : {}),
      ...(patterns.length > 0
        ? { regex: patterns.length === 1 ? patterns[0]! : patterns.map((p) => `(?:${p})`).join('|') }
        : {}),
    });
  }
  return conditions;
}

/** A tag's entry (or one value of its list): the model's condition has no fields of its own in KairosDB's JSON. */
function entryFields(path: string): FieldNames {
  return { path, param: () => path };
}

/** Aggregators and group-bys: `{name, ...params}` split into the model's wire form; the engine checks the rest. */
function readNamedList(value: unknown, path: string): AggregatorSpec[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new InputError(path, value, 'must be an array of objects with a name');
  return value.map((item: unknown, i) => {
    if (!isObject(item)) throw new InputError(`${path}[${i}]`, item, 'must be an object with a name');
    const { name, ...params } = item;
    if (typeof name !== 'string' || name === '')
      throw new InputError(`${path}[${i}].name`, name, 'must be a non-empty string');
    return { name, params, fields: wireFields(`${path}[${i}]`) };
  });
}

function readOrder(value: unknown, field: string): 'asc' | 'desc' {
  if (value === undefined || value === null) return 'asc';
  const order = typeof value === 'string' ? value.toLowerCase() : undefined;
  if (order !== 'asc' && order !== 'desc') throw new InputError(field, value, 'must be asc or desc');
  return order;
}

function readBoolean(value: unknown, field: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new InputError(field, value, 'must be true or false');
  return value;
}

function readString(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new InputError(field, value, 'must be a string');
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
