/**
 * How a user's table maps onto series (the `table` layout's settings), and the check of that mapping against the
 * table's real schema (`system_schema`): every column named must exist with a kind and a type the layout can use, so a
 * wrong mapping stops start-up with a message naming the source and the column instead of failing every query.
 */
import { BUCKET_COLUMN_TYPES, type BucketSpec } from './buckets.js';

export interface TableMapping {
  readonly keyspace: string;
  readonly table: string;
  /** The clustering column holding each row's time (`timestamp`). */
  readonly time: string;
  readonly bucket: { readonly column: string } & BucketSpec;
  /** Partition key columns other than the bucket, each a tag of the same name. */
  readonly tags: readonly string[];
  /** Metric name → the regular column holding its values. */
  readonly metrics: Readonly<Record<string, string>>;
}

/** A column of the table as system_schema.columns describes it. */
export interface SchemaColumn {
  readonly name: string;
  readonly kind: 'partition_key' | 'clustering' | 'regular' | 'static';
  readonly position: number;
  readonly type: string;
  readonly order: 'asc' | 'desc' | 'none';
}

/** The checked mapping with what the layout needs from the schema. */
export interface CheckedTable {
  readonly mapping: TableMapping;
  /** The partition key columns in order (tags and the bucket), with their CQL types. */
  readonly partitionKey: readonly SchemaColumn[];
  /** Each tag column's CQL type. */
  readonly tagTypes: Readonly<Record<string, string>>;
  /** Each metric's value column and its CQL type. */
  readonly metricColumns: Readonly<Record<string, { readonly column: string; readonly type: string }>>;
  readonly bucketType: string;
  /** The table's default_time_to_live in seconds (0: none). */
  readonly defaultTtlSeconds: number;
}

/** CQL types a tag column may have: each renders as a string and is bound back from one. */
export const TAG_TYPES = ['text', 'varchar', 'ascii', 'int', 'bigint', 'smallint', 'tinyint', 'uuid', 'timeuuid', 'boolean'] as const;
/** CQL types a value column may have, and the kind of point each gives. */
export const VALUE_TYPES: Readonly<Record<string, 'long' | 'double' | 'string'>> = {
  int: 'long',
  bigint: 'long',
  smallint: 'long',
  tinyint: 'long',
  float: 'double',
  double: 'double',
  decimal: 'double',
  text: 'string',
  varchar: 'string',
  ascii: 'string',
};

/** Column and table names the layout quotes into CQL: what an unquoted CQL name can be, and upper case. */
export const CQL_NAME = /^[A-Za-z][A-Za-z0-9_]{0,47}$/;

/** The mapping against the table's columns; throws an Error whose message names the column and what is wrong. */
export function checkMapping(mapping: TableMapping, columns: readonly SchemaColumn[], defaultTtlSeconds: number): CheckedTable {
  const where = `${mapping.keyspace}.${mapping.table}`;
  if (columns.length === 0) throw new Error(`table ${where} does not exist`);
  const byName = new Map(columns.map((c) => [c.name, c]));
  const column = (name: string, role: string): SchemaColumn => {
    const found = byName.get(name);
    if (found === undefined) throw new Error(`${role} column "${name}" is not a column of ${where} (its columns: ${columns.map((c) => c.name).join(', ')})`);
    return found;
  };
  const partitionKey = columns.filter((c) => c.kind === 'partition_key').sort((a, b) => a.position - b.position);

  const bucket = column(mapping.bucket.column, 'bucket');
  if (bucket.kind !== 'partition_key') throw new Error(`bucket column "${bucket.name}" must be in the partition key of ${where} (it is a ${bucket.kind} column)`);
  const bucketTypes = BUCKET_COLUMN_TYPES[mapping.bucket.kind];
  if (!bucketTypes.includes(bucket.type)) throw new Error(`bucket column "${bucket.name}" has type ${bucket.type}; a ${mapping.bucket.kind} bucket must be ${orList(bucketTypes)}`);

  const tagTypes: Record<string, string> = {};
  for (const name of mapping.tags) {
    const tag = column(name, 'tag');
    if (tag.kind !== 'partition_key') throw new Error(`tag column "${name}" is a ${tag.kind} column of ${where}: only partition key columns can be tags`);
    if (name === bucket.name) throw new Error(`tag column "${name}" is the bucket column`);
    if (!(TAG_TYPES as readonly string[]).includes(tag.type)) throw new Error(`tag column "${name}" has type ${tag.type}; a tag must be ${TAG_TYPES.join(', ')}`);
    tagTypes[name] = tag.type;
  }
  for (const key of partitionKey) {
    if (key.name !== bucket.name && !mapping.tags.includes(key.name)) throw new Error(`partition key column "${key.name}" of ${where} must be a tag (add it to tags): a partition is read by its whole key`);
  }

  const time = column(mapping.time, 'time');
  const clustering = columns.filter((c) => c.kind === 'clustering').sort((a, b) => a.position - b.position);
  if (time.kind !== 'clustering' || clustering[0]?.name !== time.name) throw new Error(`time column "${time.name}" must be the first clustering column of ${where} (it is a ${time.kind} column)`);
  if (time.type !== 'timestamp') throw new Error(`time column "${time.name}" has type ${time.type}; it must be timestamp`);
  if (clustering.length > 1) throw new Error(`${where} has clustering columns after the time column (${clustering.slice(1).map((c) => c.name).join(', ')}): several rows per time cannot be one series`);

  const metricColumns: Record<string, { column: string; type: string }> = {};
  for (const [metric, name] of Object.entries(mapping.metrics)) {
    const value = column(name, `metric ${JSON.stringify(metric)}'s`);
    if (value.kind !== 'regular') throw new Error(`metric ${JSON.stringify(metric)}'s column "${name}" is a ${value.kind} column; values must be in regular columns`);
    if (VALUE_TYPES[value.type] === undefined) throw new Error(`metric ${JSON.stringify(metric)}'s column "${name}" has type ${value.type}; values must be ${Object.keys(VALUE_TYPES).join(', ')}`);
    metricColumns[metric] = { column: name, type: value.type };
  }
  return { mapping, partitionKey, tagTypes, metricColumns, bucketType: bucket.type, defaultTtlSeconds };
}

/** `a`, `a or b`, `a, b or c`. */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}
