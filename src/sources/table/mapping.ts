/**
 * How a user's table maps onto series (the `table` layout's settings), and the check of that mapping against the
 * table's real schema (`system_schema`): every column named must exist with a kind and a type the layout can use, so a
 * wrong mapping stops start-up with a message naming the source and the column instead of failing every query.
 */
import { BUCKET_COLUMN_TYPES, type BucketSpec } from './buckets.js';
import { TIME_TYPES, TimeColumn, type TimeUnit } from './time-column.js';

export interface TableMapping {
  readonly keyspace: string;
  readonly table: string;
  /** The clustering column holding each row's time (`timestamp`, `bigint` epoch time or `timeuuid`). */
  readonly time: string;
  /** The unit of a `bigint` time column (milliseconds when absent). */
  readonly timeUnit?: TimeUnit;
  readonly bucket: { readonly column: string } & BucketSpec;
  /**
   * Columns whose values are tags of the same name: every partition key column other than the bucket, every clustering
   * column before or after the time column, and any regular columns named here.
   */
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

/** An index of the table as system_schema.indexes describes it. */
export interface SchemaIndex {
  readonly name: string;
  /** Its options' `class_name` (`sai`, `StorageAttachedIndex` or the class's full name for SAI). */
  readonly className: string | undefined;
  /** Its options' `target`: the column (quoted when its name needs it), or `values(col)`, `keys(col)`... */
  readonly target: string | undefined;
}

/**
 * The checked mapping with what the layout needs from the schema. Tags come in three kinds, by where their column is:
 * partition tags (in the partition key: a partition is one value of each), prefix tags (clustering columns before the
 * time column: a read restricts them by equality, so one statement still reads one series) and row tags (regular
 * columns, or clustering columns after the time column: one partition holds rows of several series, which a read tells
 * apart in memory).
 */
export interface CheckedTable {
  readonly mapping: TableMapping;
  /** The partition key columns in order (tags and the bucket), with their CQL types. */
  readonly partitionKey: readonly SchemaColumn[];
  /** Clustering columns before the time column, in clustering order, all tags. */
  readonly prefixTags: readonly SchemaColumn[];
  /** Clustering columns after the time column, in clustering order, all tags (a part of every row's primary key). */
  readonly afterTimeTags: readonly SchemaColumn[];
  /** Tags that are not in the primary key (regular columns), each a part of a row. */
  readonly regularTags: readonly SchemaColumn[];
  /** Tags in a storage-attached index (Cassandra 5's SAI) on their column alone: a filter on one is looked up there. */
  readonly indexedTags: readonly string[];
  readonly time: TimeColumn;
  /** Each tag column's CQL type. */
  readonly tagTypes: Readonly<Record<string, string>>;
  /** Each metric's value column and its CQL type. */
  readonly metricColumns: Readonly<Record<string, { readonly column: string; readonly type: string }>>;
  readonly bucketType: string;
  /** The table's default_time_to_live in seconds (0: none). */
  readonly defaultTtlSeconds: number;
}

/** CQL types a tag column may have: each renders as a string and is bound back from one. */
const TAG_TYPES = [
  'text',
  'varchar',
  'ascii',
  'int',
  'bigint',
  'smallint',
  'tinyint',
  'uuid',
  'timeuuid',
  'boolean',
] as const;
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

/** The tags a row holds beyond its partition's (clustering columns after the time, regular columns). */
export function rowTags(checked: CheckedTable): readonly SchemaColumn[] {
  return [...checked.afterTimeTags, ...checked.regularTags];
}

/** The mapping against the table's columns; throws an Error whose message names the column and what is wrong. */
export function checkMapping(
  mapping: TableMapping,
  columns: readonly SchemaColumn[],
  defaultTtlSeconds: number,
  indexes: readonly SchemaIndex[] = [],
): CheckedTable {
  const where = `${mapping.keyspace}.${mapping.table}`;
  if (columns.length === 0) throw new Error(`table ${where} does not exist`);
  const byName = new Map(columns.map((c) => [c.name, c]));
  const column = (name: string, role: string): SchemaColumn => {
    const found = byName.get(name);
    if (found === undefined)
      throw new Error(
        `${role} column "${name}" is not a column of ${where} (its columns: ${columns.map((c) => c.name).join(', ')})`,
      );
    return found;
  };
  const partitionKey = columns.filter((c) => c.kind === 'partition_key').sort((a, b) => a.position - b.position);

  const bucket = column(mapping.bucket.column, 'bucket');
  if (bucket.kind !== 'partition_key')
    throw new Error(
      `bucket column "${bucket.name}" must be in the partition key of ${where} (it is a ${bucket.kind} column)`,
    );
  const bucketTypes = BUCKET_COLUMN_TYPES[mapping.bucket.kind];
  if (!bucketTypes.includes(bucket.type))
    throw new Error(
      `bucket column "${bucket.name}" has type ${bucket.type}; a ${mapping.bucket.kind} bucket must be ${orList(bucketTypes)}`,
    );

  const tagTypes: Record<string, string> = {};
  for (const name of mapping.tags) {
    const tag = column(name, 'tag');
    if (name === bucket.name) throw new Error(`tag column "${name}" is the bucket column`);
    if (tag.kind === 'static')
      throw new Error(
        `tag column "${name}" is a static column of ${where}: a tag must be a partition key, clustering or regular column`,
      );
    if (!(TAG_TYPES as readonly string[]).includes(tag.type))
      throw new Error(`tag column "${name}" has type ${tag.type}; a tag must be ${TAG_TYPES.join(', ')}`);
    tagTypes[name] = tag.type;
  }
  for (const key of partitionKey) {
    if (key.name !== bucket.name && !mapping.tags.includes(key.name))
      throw new Error(
        `partition key column "${key.name}" of ${where} must be a tag (add it to tags): a partition is read by its whole key`,
      );
  }

  const time = column(mapping.time, 'time');
  const clustering = columns.filter((c) => c.kind === 'clustering').sort((a, b) => a.position - b.position);
  if (time.kind !== 'clustering')
    throw new Error(`time column "${time.name}" must be a clustering column of ${where} (it is a ${time.kind} column)`);
  if (!(TIME_TYPES as readonly string[]).includes(time.type))
    throw new Error(`time column "${time.name}" has type ${time.type}; it must be ${orList(TIME_TYPES)}`);
  if (mapping.timeUnit !== undefined && time.type !== 'bigint')
    throw new Error(
      `time column "${time.name}" has type ${time.type}, which carries its own unit: timeUnit is for a bigint time column`,
    );
  const at = clustering.indexOf(time);
  const prefixTags = clustering.slice(0, at);
  const afterTimeTags = clustering.slice(at + 1);
  for (const c of prefixTags) {
    if (!mapping.tags.includes(c.name))
      throw new Error(
        `clustering column "${c.name}" of ${where} comes before the time column "${time.name}" and must be a tag (add it to tags): a read of a time range pins it by equality`,
      );
  }
  if (new Set(prefixTags.map((c) => c.order)).size > 1)
    throw new Error(
      `clustering columns ${prefixTags.map((c) => `"${c.name}"`).join(', ')} of ${where} have mixed clustering orders; tags before the time column must share one order, so their values can be listed by skipping through a partition`,
    );
  const untagged = afterTimeTags.filter((c) => !mapping.tags.includes(c.name));
  if (untagged.length > 0)
    throw new Error(
      `${where} has clustering columns after the time column (${untagged.map((c) => c.name).join(', ')}): several rows per time cannot be one series unless each is a tag (add it to tags)`,
    );
  const regularTags = mapping.tags.map((name) => byName.get(name)!).filter((c) => c.kind === 'regular');
  const indexedTags = mapping.tags.filter((name) =>
    indexes.some((index) => isSai(index) && unquote(index.target) === name),
  );

  const metricColumns: Record<string, { column: string; type: string }> = {};
  for (const [metric, name] of Object.entries(mapping.metrics)) {
    const value = column(name, `metric ${JSON.stringify(metric)}'s`);
    if (mapping.tags.includes(name))
      throw new Error(`metric ${JSON.stringify(metric)}'s column "${name}" is also a tag`);
    if (value.kind !== 'regular')
      throw new Error(
        `metric ${JSON.stringify(metric)}'s column "${name}" is a ${value.kind} column; values must be in regular columns`,
      );
    if (VALUE_TYPES[value.type] === undefined)
      throw new Error(
        `metric ${JSON.stringify(metric)}'s column "${name}" has type ${value.type}; values must be ${Object.keys(VALUE_TYPES).join(', ')}`,
      );
    metricColumns[metric] = { column: name, type: value.type };
  }
  return {
    mapping,
    partitionKey,
    prefixTags,
    afterTimeTags,
    regularTags,
    indexedTags,
    time: new TimeColumn(time.type as TimeColumn['type'], mapping.timeUnit),
    tagTypes,
    metricColumns,
    bucketType: bucket.type,
    defaultTtlSeconds,
  };
}

/** SAI, however the index was created (`USING 'sai'`, `'StorageAttachedIndex'` or the class's full name). */
function isSai(index: SchemaIndex): boolean {
  return /(^|\.)(sai|StorageAttachedIndex)$/i.test(index.className ?? '');
}

/** An index target naming a column alone, as the column's name (`"Col"` → Col); `values(col)` and the like stay as they are. */
function unquote(target: string | undefined): string | undefined {
  return target !== undefined && /^".*"$/.test(target) ? target.slice(1, -1).replaceAll('""', '"') : target;
}

/** `a`, `a or b`, `a, b or c`. */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}
