/**
 * SOURCES_FILE: the sources beside the primary one, as JSON (`{"sources": [{"name": ..., "layout": ..., ...}]}`),
 * read and checked once at start. A bad file stops start-up with a ConfigError that names the source and the field, in
 * the configuration's wording; nothing in it is looked at again afterwards.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../model/errors.js';
import { contactPointProblem, keyspaceProblem } from '../store/cassandra-client/connection-options.js';
import type { StoreSettings } from '../store/open-store.js';
import { dict } from '../lib/dict.js';
import { HEROIC_LAYOUT, RESOURCE_PREFIX } from './heroic/heroic-source.js';
import type { HeroicSchema, HeroicSeries } from './heroic/row-key.js';
import { KAIROSDB_LAYOUT } from './kairosdb/kairosdb-source.js';
import { BUCKET_COLUMN_TYPES, BUCKET_KINDS, Buckets, type BucketKind } from './table/buckets.js';
import { CQL_NAME, type TableMapping } from './table/mapping.js';
import { TIME_UNITS, type TimeUnit } from './table/time-column.js';
import { TABLE_LAYOUT } from './table/table-source.js';
import { SOURCE_NAME, SOURCE_NAME_RULE } from './sources.js';

/** One source of the file: its name, its layout and the layout's settings. */
export type SourceSettings = KairosdbSourceSettings | HeroicSourceSettings | TableSourceSettings;

/** A user's table, how it maps onto series, and how its series are found (table/mapping.ts, catalogue). */
export interface TableSourceSettings {
  readonly name: string;
  readonly layout: typeof TABLE_LAYOUT;
  readonly mapping: TableMapping;
  readonly cassandra: {
    readonly contactPoints: readonly string[];
    readonly localDataCenter: string;
    readonly keyspace: string;
  };
  readonly writable: boolean;
  readonly maxBuckets: number;
  readonly catalogue:
    | { readonly kind: 'scan'; readonly path: string; readonly refreshIntervalMs: number }
    | { readonly kind: 'static'; readonly series: readonly Readonly<Record<string, string>>[] };
}

interface KairosdbSourceSettings {
  readonly name: string;
  readonly layout: typeof KAIROSDB_LAYOUT;
  readonly store: StoreSettings;
}

/** Heroic's `metrics` table in a keyspace, and how its series are found (heroic/catalogue.ts). */
export interface HeroicSourceSettings {
  readonly name: string;
  readonly layout: typeof HEROIC_LAYOUT;
  readonly schema: HeroicSchema;
  readonly cassandra: {
    readonly contactPoints: readonly string[];
    readonly localDataCenter: string;
    readonly keyspace: string;
  };
  /** Create the keyspace and table when missing, as Heroic's own `configure: true`. */
  readonly configure: boolean;
  readonly catalogue:
    | { readonly kind: 'scan'; readonly path: string; readonly refreshIntervalMs: number }
    | { readonly kind: 'static'; readonly series: readonly HeroicSeries[] };
}

const LAYOUTS = [KAIROSDB_LAYOUT, HEROIC_LAYOUT, TABLE_LAYOUT] as const;
const TABLE_FIELDS = [
  'name',
  'layout',
  'keyspace',
  'table',
  'time',
  'timeUnit',
  'bucket',
  'tags',
  'metrics',
  'contactPoints',
  'localDataCenter',
  'writable',
  'maxBucketsPerQuery',
  'catalogue',
  'catalogueRefreshSeconds',
  'series',
];
/** Buckets one query may span over a table source, by default: almost three years of days. */
const DEFAULT_MAX_BUCKETS = 1000;
const SCHEMAS = ['ng', 'legacy'] as const;
/** The fields of a heroic source; Cassandra's may be left out for the CASSANDRA_* settings. */
const HEROIC_FIELDS = [
  'name',
  'layout',
  'schema',
  'contactPoints',
  'localDataCenter',
  'keyspace',
  'configure',
  'catalogue',
  'catalogueRefreshSeconds',
  'series',
];
/** A catalogue's pause between passes over the table, by default. */
const DEFAULT_REFRESH_SECONDS = 600;
const STORES = ['embedded', 'cassandra'] as const;
/** The fields of a kairosdb source on each store; Cassandra's may be left out for the CASSANDRA_* settings. */
const FIELDS: Readonly<Record<(typeof STORES)[number], readonly string[]>> = {
  embedded: ['name', 'layout', 'store', 'path'],
  cassandra: ['name', 'layout', 'store', 'contactPoints', 'localDataCenter', 'keyspace'],
};

const ENV = 'SOURCES_FILE';

/** What reading SOURCES_FILE takes, from the gateway's configuration. */
export interface SourcesFileOptions {
  /** The file's path; empty for none. */
  readonly file: string;
  /** The primary source's name, which no source of the file may take. */
  readonly primaryName: string;
  /** Where a source keeps its catalogue unless it names a place (under `heroic-catalogues/` or `table-catalogues/`). */
  readonly dataDir: string;
  /** Where a Cassandra source's table is unless it says (contact points, data centre, KairosDB's keyspace). */
  readonly cassandra: {
    readonly contactPoints: readonly string[];
    readonly localDataCenter: string;
    readonly keyspace: string;
  };
}

/** The sources of the file (none when there is none); a ConfigError names what is wrong. */
export function loadSourcesFile(options: SourcesFileOptions): SourceSettings[] {
  const file = options.file;
  if (file === '') return [];
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${ENV} cannot be read: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${ENV} ${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(json))
    throw new ConfigError(`${ENV} ${file} must be a JSON object {"sources": [...]} (got ${show(json)})`);
  for (const field of Object.keys(json))
    if (field !== 'sources')
      throw new ConfigError(`${ENV} ${file}: unknown field ${JSON.stringify(field)} (fields: sources)`);
  const list = json['sources'];
  if (!Array.isArray(list))
    throw new ConfigError(`${ENV} ${file}: sources must be a list of sources (got ${show(list)})`);
  // The primary source's name is taken first: a file cannot shadow it.
  const taken = new Map<string, string>([[options.primaryName, 'the primary source (PRIMARY_SOURCE_NAME)']]);
  return list.map((entry, i) => {
    const source = readSource(entry, `sources[${i}]`, options, taken);
    taken.set(source.name, `sources[${i}]`);
    return source;
  });
}

function readSource(
  entry: unknown,
  at: string,
  options: SourcesFileOptions,
  taken: ReadonlyMap<string, string>,
): SourceSettings {
  if (!isObject(entry)) throw new ConfigError(`${ENV} ${at} must be an object (got ${show(entry)})`);
  const name = entry['name'];
  if (typeof name !== 'string' || !SOURCE_NAME.test(name))
    throw new ConfigError(`${ENV} ${at}: name ${SOURCE_NAME_RULE} (got ${show(name)})`);
  const fail = (field: string, problem: string): never => {
    throw new ConfigError(`${ENV} source ${JSON.stringify(name)}: ${field} ${problem}`);
  };
  const owner = taken.get(name);
  if (owner !== undefined) fail('name', `is taken by ${owner}`);
  const layout = entry['layout'];
  if (!LAYOUTS.includes(layout as (typeof LAYOUTS)[number]))
    fail('layout', `must be one of ${LAYOUTS.join(', ')} (got ${show(layout)})`);
  // A field given (even as null) is checked; one left out takes the CASSANDRA_* setting.
  const given = (field: string, fallback?: unknown): unknown => (Object.hasOwn(entry, field) ? entry[field] : fallback);
  const text = (field: string, fallback?: string): string => {
    const value = given(field, fallback);
    if (typeof value !== 'string' || value.trim() === '')
      fail(field, `must be a non-empty string (got ${show(value)})`);
    return (value as string).trim();
  };
  if (layout === TABLE_LAYOUT) {
    for (const field of Object.keys(entry))
      if (!TABLE_FIELDS.includes(field))
        fail(
          JSON.stringify(field),
          `is not a field of a ${TABLE_LAYOUT} source (its fields: ${TABLE_FIELDS.join(', ')})`,
        );
    return readTableSource(name, given, text, fail, options);
  }
  if (layout === HEROIC_LAYOUT) {
    for (const field of Object.keys(entry))
      if (!HEROIC_FIELDS.includes(field))
        fail(
          JSON.stringify(field),
          `is not a field of a ${HEROIC_LAYOUT} source (its fields: ${HEROIC_FIELDS.join(', ')})`,
        );
    return readHeroicSource(name, given, text, fail, options);
  }
  const kind = entry['store'];
  if (!STORES.includes(kind as (typeof STORES)[number]))
    fail('store', `must be one of ${STORES.join(', ')} (got ${show(kind)})`);
  const fields = FIELDS[kind as (typeof STORES)[number]];
  for (const field of Object.keys(entry)) {
    if (!fields.includes(field))
      fail(
        JSON.stringify(field),
        `is not a field of a ${KAIROSDB_LAYOUT} source on the ${kind} store (its fields: ${fields.join(', ')})`,
      );
  }
  if (kind === 'embedded') return { name, layout: KAIROSDB_LAYOUT, store: { kind, path: text('path') } };
  return {
    name,
    layout: KAIROSDB_LAYOUT,
    store: { kind: 'cassandra', ...cassandraPlace(given, text, fail, options, options.cassandra.keyspace) },
  };
}

type Given = (field: string, fallback?: unknown) => unknown;
type Text = (field: string, fallback?: string) => string;
type Fail = (field: string, problem: string) => never;

function readHeroicSource(
  name: string,
  given: Given,
  text: Text,
  fail: Fail,
  options: SourcesFileOptions,
): HeroicSourceSettings {
  const schema = given('schema', 'ng');
  if (!SCHEMAS.includes(schema as HeroicSchema))
    fail('schema', `must be one of ${SCHEMAS.join(', ')} (got ${show(schema)})`);
  const configure = given('configure', false);
  if (typeof configure !== 'boolean') fail('configure', `must be true or false (got ${show(configure)})`);
  const cassandra = cassandraPlace(given, text, fail, options, 'heroic');
  const base = {
    name,
    layout: HEROIC_LAYOUT,
    schema: schema as HeroicSchema,
    cassandra,
    configure: configure as boolean,
  } as const;
  const listed = given('series');
  if (listed !== undefined) {
    if (given('catalogue') !== undefined || given('catalogueRefreshSeconds') !== undefined)
      fail('series', 'lists the series instead of a catalogue: leave out catalogue and catalogueRefreshSeconds');
    if (!Array.isArray(listed) || listed.length === 0)
      fail(
        'series',
        `must be a non-empty list of {"key": ..., "tags": {...}, "resource": {...}} (got ${show(listed)})`,
      );
    return {
      ...base,
      catalogue: {
        kind: 'static',
        series: (listed as unknown[]).map((s, i) => readSeries(s, `series[${i}]`, schema as HeroicSchema, fail)),
      },
    };
  }
  const path = text('catalogue', join(options.dataDir, 'heroic-catalogues', name));
  const refresh = given('catalogueRefreshSeconds', DEFAULT_REFRESH_SECONDS);
  if (typeof refresh !== 'number' || !Number.isInteger(refresh) || refresh < 1 || refresh > 604_800)
    fail('catalogueRefreshSeconds', `must be a whole number of seconds from 1 to 604800 (got ${show(refresh)})`);
  return { ...base, catalogue: { kind: 'scan', path, refreshIntervalMs: (refresh as number) * 1000 } };
}

function readTableSource(
  name: string,
  given: Given,
  text: Text,
  fail: Fail,
  options: SourcesFileOptions,
): TableSourceSettings {
  const cassandra = cassandraPlace(given, text, fail, options, '');
  const cqlName = (field: string): string => {
    const value = text(field);
    if (!CQL_NAME.test(value))
      fail(field, `must be a CQL name: a letter, then letters, digits or _, at most 48 (got ${show(value)})`);
    return value;
  };
  const table = cqlName('table');
  const time = cqlName('time');
  const timeUnit = given('timeUnit');
  if (timeUnit !== undefined && !(TIME_UNITS as readonly unknown[]).includes(timeUnit))
    fail('timeUnit', `must be one of ${TIME_UNITS.join(', ')} (got ${show(timeUnit)})`);
  const bucketField = given('bucket');
  if (!isObject(bucketField)) fail('bucket', `must be {"column": ..., "kind": ...} (got ${show(bucketField)})`);
  const bucket = bucketField as Record<string, unknown>;
  for (const field of Object.keys(bucket))
    if (!['column', 'kind', 'zone', 'widthMs'].includes(field))
      fail(`bucket.${field}`, 'is not a field of a bucket (its fields: column, kind, zone, widthMs)');
  const column = bucket['column'];
  if (typeof column !== 'string' || !CQL_NAME.test(column))
    fail('bucket.column', `must be a CQL name (got ${show(column)})`);
  const kind = bucket['kind'];
  if (!(BUCKET_KINDS as readonly unknown[]).includes(kind))
    fail('bucket.kind', `must be one of ${BUCKET_KINDS.join(', ')} (got ${show(kind)})`);
  const zone = bucket['zone'] ?? 'UTC';
  if (typeof zone !== 'string')
    fail('bucket.zone', `must be an IANA time zone such as "Europe/Berlin" (got ${show(zone)})`);
  const widthMs = bucket['widthMs'];
  if (widthMs !== undefined && typeof widthMs !== 'number')
    fail('bucket.widthMs', `must be a number of ms (got ${show(widthMs)})`);
  const spec = {
    kind: kind as BucketKind,
    zone: zone as string,
    ...(widthMs !== undefined ? { widthMs: widthMs as number } : {}),
  };
  try {
    // The spec alone (zone, width); the column's type is checked against the table when it connects.
    new Buckets(spec, BUCKET_COLUMN_TYPES[spec.kind][0]!);
  } catch (error) {
    fail('bucket:', (error as Error).message);
  }
  const tags = given('tags');
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string' || !CQL_NAME.test(t)))
    fail(
      'tags',
      `must be a list of column names: the partition key's other than the bucket, the clustering columns other than the time, and any regular columns (got ${show(tags)})`,
    );
  const metrics = given('metrics');
  if (!isObject(metrics) || Object.keys(metrics).length === 0)
    fail('metrics', `must map metric names to value columns, e.g. {"sensor.value": "value"} (got ${show(metrics)})`);
  for (const [metric, col] of Object.entries(metrics as Record<string, unknown>)) {
    if (metric === '' || metric.includes('\u0000'))
      fail('metrics', `names a metric ${show(metric)}, which cannot be a metric name`);
    if (typeof col !== 'string' || !CQL_NAME.test(col))
      fail(`metrics.${metric}`, `must be a CQL column name (got ${show(col)})`);
  }
  const writable = given('writable', false);
  if (typeof writable !== 'boolean') fail('writable', `must be true or false (got ${show(writable)})`);
  const maxBuckets = given('maxBucketsPerQuery', DEFAULT_MAX_BUCKETS);
  if (typeof maxBuckets !== 'number' || !Number.isInteger(maxBuckets) || maxBuckets < 1 || maxBuckets > 100_000)
    fail('maxBucketsPerQuery', `must be a whole number from 1 to 100000 (got ${show(maxBuckets)})`);
  const mapping: TableMapping = {
    keyspace: cassandra.keyspace,
    table,
    time,
    ...(timeUnit !== undefined ? { timeUnit: timeUnit as TimeUnit } : {}),
    bucket: { column: column as string, ...spec },
    tags: tags as string[],
    metrics: metrics as Record<string, string>,
  };
  const base = {
    name,
    layout: TABLE_LAYOUT,
    mapping,
    cassandra,
    writable: writable as boolean,
    maxBuckets: maxBuckets as number,
  } as const;
  const listed = given('series');
  if (listed !== undefined) {
    if (given('catalogue') !== undefined || given('catalogueRefreshSeconds') !== undefined)
      fail('series', 'lists the series instead of a catalogue: leave out catalogue and catalogueRefreshSeconds');
    if (!Array.isArray(listed) || listed.length === 0)
      fail(
        'series',
        `must be a non-empty list of the entities' tags, e.g. [{"sensor_id": "s-1"}] (got ${show(listed)})`,
      );
    const series = (listed as unknown[]).map((entry, i) => {
      if (!isObject(entry)) fail(`series[${i}]`, `must be an object of tag values (got ${show(entry)})`);
      const out = dict<string>();
      for (const tag of tags as string[]) {
        const value = (entry as Record<string, unknown>)[tag];
        if (typeof value !== 'string') fail(`series[${i}].${tag}`, `must be a string (got ${show(value)})`);
        out[tag] = value as string;
      }
      for (const key of Object.keys(entry as object))
        if (!(tags as string[]).includes(key))
          fail(`series[${i}].${key}`, `is not a tag (tags: ${(tags as string[]).join(', ')})`);
      return out;
    });
    return { ...base, catalogue: { kind: 'static', series } };
  }
  const path = text('catalogue', join(options.dataDir, 'table-catalogues', name));
  const refresh = given('catalogueRefreshSeconds', DEFAULT_REFRESH_SECONDS);
  if (typeof refresh !== 'number' || !Number.isInteger(refresh) || refresh < 1 || refresh > 604_800)
    fail('catalogueRefreshSeconds', `must be a whole number of seconds from 1 to 604800 (got ${show(refresh)})`);
  return { ...base, catalogue: { kind: 'scan', path, refreshIntervalMs: (refresh as number) * 1000 } };
}

function readSeries(value: unknown, at: string, schema: HeroicSchema, fail: Fail): HeroicSeries {
  if (!isObject(value)) fail(at, `must be {"key": ..., "tags": {...}, "resource": {...}} (got ${show(value)})`);
  const entry = value as Record<string, unknown>;
  for (const field of Object.keys(entry))
    if (!['key', 'tags', 'resource'].includes(field))
      fail(`${at}.${field}`, 'is not a field of a series (its fields: key, tags, resource)');
  const key = entry['key'];
  if (typeof key !== 'string' || key === '') fail(`${at}.key`, `must be a non-empty string (got ${show(key)})`);
  const map = (field: 'tags' | 'resource'): Record<string, string> => {
    const raw = entry[field] ?? {};
    if (!isObject(raw)) fail(`${at}.${field}`, `must be an object of strings (got ${show(raw)})`);
    const out = dict<string>();
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
      if (typeof v !== 'string') fail(`${at}.${field}.${k}`, `must be a string (got ${show(v)})`);
      out[k] = v as string;
    }
    return out;
  };
  const resource = map('resource');
  if (schema === 'legacy' && Object.keys(resource).length > 0)
    fail(`${at}.resource`, "must be empty: Heroic's legacy keys hold no resource");
  const tags = map('tags');
  // Resource entries show as `resource:` tags: a tag of that name could not be told from one.
  for (const name of Object.keys(tags))
    if (name.startsWith(RESOURCE_PREFIX))
      fail(`${at}.tags.${name}`, `must not start with "${RESOURCE_PREFIX}": list it under resource`);
  return { key: key as string, tags, resource };
}

/**
 * Where a Cassandra source's keyspace is: given fields, or the CASSANDRA_* settings; `keyspace` defaults to
 * `defaultKeyspace`, or must be given when that is empty.
 */
function cassandraPlace(given: Given, text: Text, fail: Fail, options: SourcesFileOptions, defaultKeyspace: string) {
  const points = given('contactPoints', options.cassandra.contactPoints);
  if (!Array.isArray(points) || points.length === 0)
    fail('contactPoints', `must be a non-empty list of "host" or "host:port" (got ${show(points)})`);
  const contactPoints = (points as unknown[]).map((point, k) => {
    if (typeof point !== 'string') fail(`contactPoints[${k}]`, `must be "host" or "host:port" (got ${show(point)})`);
    const problem = contactPointProblem((point as string).trim());
    if (problem !== undefined) fail(`contactPoints[${k}]:`, problem);
    return (point as string).trim();
  });
  const keyspace = text('keyspace', defaultKeyspace === '' ? undefined : defaultKeyspace);
  const problem = keyspaceProblem(keyspace);
  if (problem !== undefined) fail('keyspace:', problem);
  return { contactPoints, localDataCenter: text('localDataCenter', options.cassandra.localDataCenter), keyspace };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value as JSON in a message, cut short: a whole file could be shown otherwise. */
function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}
