/**
 * A point's fields as cells: each reads one field of a point from its list's columns, as the schema's own scalar or
 * enum serializes it, and writes it as JSON bytes (a fast cell per field, a span writer for runs of doubles).
 */
import { getNamedType, type GraphQLLeafType, type GraphQLObjectType } from 'graphql';
import {
  longAt,
  valueAt,
  type ComplexValue,
  type PointKind,
  type PointValue,
  type RunColumns,
} from '../engine/point-list.js';
import type { ValueType as GraphQLValueType } from '../generated/graphql.js';
import { type JsonBytes, NULL, NumberRun } from '../http/json-bytes.js';

export type Cell<T> = (columns: RunColumns, i: number) => T;

const timeAt: Cell<number> = (c, i) => c.timestamps[i]!;

/**
 * Every field of `Point` (and so every column of `PointColumns`, and the fields of the same names of `Row`): its value
 * before the schema serializes it.
 */
export const POINT_FIELDS: Readonly<Record<string, Cell<unknown>>> = {
  time: timeAt,
  epochMs: timeAt,
  value: (c, i) => numericValue(c.kind, valueAt(c, i)),
  long: (c, i) => longValue(c.kind, valueAt(c, i)),
  text: (c, i) => textValue(c.kind, valueAt(c, i)),
  imaginary: (c, i) => imaginaryValue(c.kind, valueAt(c, i)),
  type: (c) => pointType(c.kind),
};

/** Writes point `i` of a run as JSON: one field of it, or the whole object. */
export type ItemWriter = (out: JsonBytes, i: number) => void;

/** A point's field written as JSON, for the points of one run: made once per run, then called for each point. */
export type ByteCell = (columns: RunColumns) => ItemWriter;

/** Writes points [from, to) of a run as items of a JSON array (a field of each, separated by commas). */
export type SpanWriter = (out: JsonBytes, from: number, to: number) => void;

/** A column written a span of points at a time, for the runs it can write so: the same text as its ByteCell's. */
export type SpanCell = (columns: RunColumns) => SpanWriter | undefined;

/**
 * The fields every large answer has, written without a call to the scalar: what `Time`, `Float` and the value's own
 * rules (numericValue) make of them, as JSON (point-answers.test.ts holds them to the schema's own serializers).
 * Every other field is served by its scalar or enum and then stringified.
 */
const FAST_CELLS: Readonly<Record<string, ByteCell>> = {
  time:
    ({ timestamps }) =>
    (out, i) =>
      out.isoTime(timestamps[i]!),
  epochMs:
    ({ timestamps }) =>
    (out, i) =>
      out.epoch(timestamps[i]!),
  value: (columns) => {
    switch (columns.kind) {
      case 'double':
      case 'complex': {
        const run = new NumberRun(columns.values);
        return (out, i) => out.nextOf(run.seek(i));
      }
      case 'long':
        return (out, i) => out.number(Number(longAt(columns, i)));
      default:
        return (out) => out.bytes(NULL);
    }
  },
};

/** The columns written a span at a time: doubles' values (and complex values' real parts) are one JSON.stringify. */
export const SPAN_CELLS: Readonly<Record<string, SpanCell>> = {
  value: (columns) =>
    columns.kind === 'double' || columns.kind === 'complex'
      ? (out, from, to) => out.numbers(columns.values, from, to)
      : undefined,
};

/** A point field of `type` as JSON: its fast cell, or its served value stringified. */
export function byteCell(type: GraphQLObjectType, field: string): ByteCell {
  const fast = FAST_CELLS[field];
  if (fast !== undefined) return fast;
  const served = servedCell(type, field);
  return (columns) => (out, i) => out.text(JSON.stringify(served(columns, i)));
}

/** Serializers of the point fields of a type (`Point` or `Row`): each field's own scalar or enum. */
const serializers = new WeakMap<GraphQLObjectType, Map<string, (value: unknown) => unknown>>();

/** A point field's value as the answer carries it: null, or what the field's scalar or enum serializes it to. */
function servedCell(type: GraphQLObjectType, field: string): Cell<unknown> {
  const cell = POINT_FIELDS[field];
  if (cell === undefined) throw new Error(`${type.name}.${field} is not a field of a point`);
  let byField = serializers.get(type);
  if (byField === undefined) serializers.set(type, (byField = new Map()));
  let serialize = byField.get(field);
  if (serialize === undefined) {
    const leaf = getNamedType(type.getFields()[field]!.type) as GraphQLLeafType;
    serialize = (value) => leaf.serialize(value);
    byField.set(field, serialize);
  }
  return (c, i) => {
    const value = cell(c, i);
    return value === null ? null : serialize(value);
  };
}

function numericValue(kind: PointKind, v: PointValue): number | null {
  switch (kind) {
    case 'long':
    case 'double':
      return finiteOrNull(Number(v));
    case 'complex':
      return finiteOrNull((v as ComplexValue).real);
    default:
      return null;
  }
}

function longValue(kind: PointKind, v: PointValue): number | bigint | null {
  return kind === 'long' ? (v as number | bigint) : null;
}

function textValue(kind: PointKind, v: PointValue): string | null {
  return kind === 'string' ? (v as string) : null;
}

function imaginaryValue(kind: PointKind, v: PointValue): number | null {
  return kind === 'complex' ? finiteOrNull((v as ComplexValue).imaginary) : null;
}

export const GRAPHQL_TYPE: Record<'long' | 'double' | 'string' | 'complex' | 'legacy', GraphQLValueType> = {
  long: 'LONG',
  double: 'DOUBLE',
  string: 'STRING',
  complex: 'COMPLEX',
  // KairosDB ≤ 0.9.3 rows mix longs and floats; their points report their own type.
  legacy: 'DOUBLE',
};

function pointType(kind: PointKind): GraphQLValueType | null {
  return kind === 'null' ? null : GRAPHQL_TYPE[kind];
}

/**
 * GraphQL's Float cannot carry NaN or an infinity (graphql-js fails the field), and neither can JSON: an aggregate
 * that overflows (a sum past 1.8e308, div, scale, rate) answers null, as the REST API does (src/engine/SEMANTICS.md).
 */
function finiteOrNull(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}
