/**
 * The table layout's values both ways: a write's tags and points as the CQL values of the table's columns (checked
 * against their types), where a series' rows are (its partition, prefix and row tags bound), and a page of cells read
 * through the driver as a slice.
 */
import cassandra from 'cassandra-driver';
import { InputError } from '../../model/errors.js';
import type { Partition, Slice, Tags } from '../../model/series.js';
import { rowTags, type CheckedTable } from './mapping.js';
import type { SeriesPlace } from './user-table.js';

/** A page decoded through the driver's rows as a slice of the rows with a value (text and decimal columns, or a driver-decoded client). */
export function sliceOfCells(
  kind: 'long' | 'double' | 'string',
  key: Partition,
  times: Float64Array,
  cells: readonly unknown[],
): Slice | undefined {
  const kept: number[] = [];
  for (let i = 0; i < cells.length; i++) if (cells[i] !== null && cells[i] !== undefined) kept.push(i);
  if (kept.length === 0) return undefined;
  const timestamps = Float64Array.from(kept, (i) => times[i]!);
  if (kind === 'string') return { kind, key, timestamps, values: kept.map((i) => cells[i] as string) };
  const values = new Float64Array(kept.length);
  let exact: BigInt64Array | undefined;
  kept.forEach((i, j) => {
    const v = cells[i];
    if (v instanceof cassandra.types.Long) {
      const big = BigInt(v.toString());
      values[j] = Number(big);
      if (big > BigInt(Number.MAX_SAFE_INTEGER) || big < -BigInt(Number.MAX_SAFE_INTEGER))
        exact ??= new BigInt64Array(kept.length);
    } else values[j] = typeof v === 'number' ? v : Number(String(v));
  });
  if (exact !== undefined) for (const [j, i] of kept.entries()) exact[j] = BigInt(String(cells[i]));
  return kind === 'long'
    ? { kind, key, timestamps, values, ...(exact ? { exact } : {}) }
    : { kind, key, timestamps, values };
}

/** A write's tags as the entity's: exactly the tag columns, each a value of its column's type. */
export function seriesTags(checked: CheckedTable, tags: Tags, field: string): Tags {
  for (const name of Object.keys(tags))
    if (checked.tagTypes[name] === undefined)
      throw new InputError(
        `${field}.${name}`,
        tags[name],
        `is not a tag of this table: its tags are ${checked.mapping.tags.join(', ')}`,
      );
  for (const name of checked.mapping.tags)
    if (tags[name] === undefined)
      throw new InputError(field, Object.keys(tags).join(','), `must have the tag ${name} (a partition key column)`);
  for (const [name, value] of Object.entries(tags)) tagValue(checked.tagTypes[name]!, value, `${field}.${name}`);
  return tags;
}

/** Where a series' rows are in one bucket: tags bound as their columns' types, the bucket's value in the partition key. */
export function seriesPlace(checked: CheckedTable, tags: Tags, bucketValue: unknown): SeriesPlace {
  const bind = (c: { name: string; type: string }) => tagValue(c.type, tags[c.name] ?? '', `tags.${c.name}`);
  return {
    partition: checked.partitionKey.map((c) => (c.name === checked.mapping.bucket.column ? bucketValue : bind(c))),
    prefix: checked.prefixTags.map(bind),
    rows: rowTags(checked).map((c) => ({ name: c.name, text: tags[c.name] ?? '', value: bind(c) })),
  };
}

/** A tag's text as its column's CQL value. */
export function tagValue(type: string, text: string, field: string): unknown {
  const { Long, Uuid, TimeUuid } = cassandra.types;
  switch (type) {
    case 'int':
    case 'smallint':
    case 'tinyint': {
      const n = Number(text);
      if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(n))
        throw new InputError(field, text, `must be an integer for a ${type} column`);
      return n;
    }
    case 'bigint':
      if (!/^-?\d+$/.test(text)) throw new InputError(field, text, 'must be an integer for a bigint column');
      return Long.fromString(text);
    case 'uuid':
    case 'timeuuid':
      try {
        return type === 'uuid' ? Uuid.fromString(text) : TimeUuid.fromString(text);
      } catch {
        throw new InputError(field, text, `must be a ${type}`);
      }
    case 'boolean':
      if (text !== 'true' && text !== 'false')
        throw new InputError(field, text, 'must be true or false for a boolean column');
      return text === 'true';
    default:
      return text;
  }
}

const INT_BITS: Readonly<Record<string, number>> = { int: 32, smallint: 16, tinyint: 8 };

/** A point's value as its column's CQL value. */
export function cellValue(type: string, value: number | bigint | string, field: string): unknown {
  switch (type) {
    case 'bigint':
      return cassandra.types.Long.fromString(String(value));
    case 'int':
    case 'smallint':
    case 'tinyint': {
      const bits = INT_BITS[type]!;
      if (
        typeof value !== 'number' ||
        !Number.isInteger(value) ||
        value < -(2 ** (bits - 1)) ||
        value >= 2 ** (bits - 1)
      ) {
        throw new InputError(
          field,
          typeof value === 'bigint' ? String(value) : value,
          `must be a ${bits}-bit integer for the ${type} column`,
        );
      }
      return value;
    }
    case 'decimal':
      return cassandra.types.BigDecimal.fromString(String(value));
    default:
      return typeof value === 'bigint' ? Number(value) : value;
  }
}
