/**
 * A table source of SOURCES_FILE: a user's table, how it maps onto series, and how its series are found, read and
 * checked in the configuration's wording. Beside its layout rather than in the file's reading (sources-file.ts), which
 * only picks the layout's reader.
 */
import { join } from 'node:path';
import { dict } from '../../lib/dict.js';
import {
  cassandraPlace,
  DEFAULT_REFRESH_SECONDS,
  isObject,
  show,
  type Fail,
  type Given,
  type SourceDefaults,
  type Text,
} from '../settings-fields.js';
import { BUCKET_COLUMN_TYPES, BUCKET_KINDS, Buckets, type BucketKind } from './buckets.js';
import { CQL_NAME, type TableMapping } from './mapping.js';
import { TIME_UNITS, type TimeUnit } from './time-column.js';
import { TABLE_LAYOUT } from './table-source.js';

/** A user's table, how it maps onto series, and how its series are found (mapping.ts, ../catalogue/). */
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

/** The fields of a table source; Cassandra's contact points and data centre may be left out for CASSANDRA_*. */
export const TABLE_FIELDS = [
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

/** A table source's settings, its fields already known to be a table source's. */
export function readTableSource(
  name: string,
  given: Given,
  text: Text,
  fail: Fail,
  options: SourceDefaults,
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
