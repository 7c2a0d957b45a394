/**
 * A series' points, answered as lists built whole. `@graphql-tools/executor` resolves and completes every field of
 * every object with a resolve info, an arguments object and a path of its own (about 3 KB and 0.9 µs per point
 * object), and completes a list of scalars item by item; the points are the bulk of every large answer. So
 * `Series.points` and the lists of `PointColumns` leave their resolvers finished: plain objects holding the selected
 * fields under their response keys, or columns, every value serialized by the schema's own scalar or enum. The
 * executor runs them against an execution schema, the contract with these fields typed as one opaque `BuiltList`,
 * and passes them through whole; the answer writer writes them in runs of one JSON.stringify call each.
 */
import {
  GraphQLScalarType,
  getNamedType,
  Kind,
  visit,
  type DocumentNode,
  type GraphQLLeafType,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type NonNullTypeNode,
} from 'graphql';
// The executor's own rules for which fields a selection asks for (fragments, @skip, @include, response keys).
import { collectSubfields } from 'graphql/execution/collectFields.js';
import { valueAt, type ComplexValue, type PointKind, type PointList, type PointValue, type RunColumns } from '../engine/point-list.js';
import type { ValueType as GraphQLValueType } from '../generated/graphql.js';
import { yieldIfDue, type Lane } from '../time-slice.js';

/** The fields whose lists their resolvers build whole, by type: in the execution schema each is a `BuiltList!`. */
export const BUILT_LISTS: Readonly<Record<string, readonly string[]>> = {
  Series: ['points'],
  PointColumns: ['time', 'epochMs', 'value', 'long', 'text', 'imaginary', 'type'],
};

/** A list its resolver built and serialized: the executor passes it on as it is. It is never an input. */
export const BuiltListScalar = new GraphQLScalarType<unknown[], unknown[]>({
  name: 'BuiltList',
  serialize: (value) => value as unknown[],
  parseValue() {
    throw new TypeError('BuiltList is an output type');
  },
  parseLiteral() {
    throw new TypeError('BuiltList is an output type');
  },
});

const BUILT_LIST_TYPE: NonNullTypeNode = { kind: Kind.NON_NULL_TYPE, type: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: BuiltListScalar.name } } };

/** The contract's type definitions with every field of BUILT_LISTS typed `BuiltList!`; throws when one is missing. */
export function executionTypeDefs(contract: DocumentNode): DocumentNode {
  const replaced = new Set<string>();
  const execution = visit(contract, {
    ObjectTypeDefinition(node) {
      const built = BUILT_LISTS[node.name.value];
      if (built === undefined) return undefined;
      const fields = node.fields?.map((field) => {
        if (!built.includes(field.name.value)) return field;
        replaced.add(`${node.name.value}.${field.name.value}`);
        return { ...field, type: BUILT_LIST_TYPE };
      });
      return { ...node, fields };
    },
  });
  const missing = Object.entries(BUILT_LISTS).flatMap(([type, fields]) => fields.map((field) => `${type}.${field}`)).filter((f) => !replaced.has(f));
  if (missing.length > 0) throw new Error(`BUILT_LISTS names fields schema.graphql lacks: ${missing.join(', ')}`);
  const scalar = { kind: Kind.SCALAR_TYPE_DEFINITION, name: { kind: Kind.NAME, value: BuiltListScalar.name } } as const;
  return { ...execution, definitions: [...execution.definitions, scalar] };
}

/** A point's field (or the whole point) as read from its run's columns. */
export type Cell<T> = (columns: RunColumns, i: number) => T;

const timeAt: Cell<number> = (c, i) => c.timestamps[i]!;

/** Every field of `Point` (and so every column of `PointColumns`): its value before the schema serializes it. */
const POINT_FIELDS: Readonly<Record<string, Cell<unknown>>> = {
  time: timeAt,
  epochMs: timeAt,
  value: (c, i) => numericValue(c.kind, valueAt(c, i)),
  long: (c, i) => longValue(c.kind, valueAt(c, i)),
  text: (c, i) => textValue(c.kind, valueAt(c, i)),
  imaginary: (c, i) => imaginaryValue(c.kind, valueAt(c, i)),
  type: (c) => pointType(c.kind),
};

/** A point of `Series.points` as answered: the selected fields' serialized values under their response keys. */
export type PointRow = Readonly<Record<string, unknown>>;

/** `Series.points`: one plain object per point, with the fields the selection asks for under its response keys. */
export function pointRows(lane: Lane, points: PointList, info: GraphQLResolveInfo): Promise<PointRow[]> {
  const point = info.schema.getType('Point') as GraphQLObjectType;
  const selected = collectSubfields(info.schema, info.fragments, info.variableValues, point, info.fieldNodes);
  const keys: string[] = [];
  const cells: Cell<unknown>[] = [];
  for (const [key, nodes] of selected) {
    const name = nodes[0]!.name.value;
    keys.push(key);
    cells.push(name === '__typename' ? () => point.name : servedCell(info.schema, name));
  }
  return built(lane, points, (c, i) => {
    const row: Record<string, unknown> = {};
    for (let k = 0; k < keys.length; k++) row[keys[k]!] = cells[k]!(c, i);
    return row;
  });
}

/** A list of `PointColumns`: the column of the `Point` field of the same name. */
export function pointColumn(lane: Lane, points: PointList, info: GraphQLResolveInfo): Promise<unknown[]> {
  return built(lane, points, servedCell(info.schema, info.fieldName));
}

/** Items between two checks of the time slice: a few hundred microseconds of building. */
const ITEMS_PER_CHECK = 2048;

/** Each point as `make` builds it, in order; the request's lane yields the thread between slices. */
async function built<T>(lane: Lane, points: PointList, make: Cell<T>): Promise<T[]> {
  const items = new Array<T>(points.length);
  let k = 0;
  for (const { columns, from, to } of points.runs) {
    for (let i = from; i < to; i++) {
      if (k % ITEMS_PER_CHECK === 0) {
        const turn = yieldIfDue(lane);
        if (turn !== undefined) await turn;
      }
      items[k++] = make(columns, i);
    }
  }
  return items;
}

/** Serializers of Point's fields, per schema (the contract and the execution schema each have their own types). */
const serializers = new WeakMap<GraphQLSchema, Map<string, (value: unknown) => unknown>>();

/** A Point field's value as the answer carries it: null, or what the field's scalar or enum serializes it to. */
function servedCell(schema: GraphQLSchema, field: string): Cell<unknown> {
  const cell = POINT_FIELDS[field];
  if (cell === undefined) throw new Error(`Point has no field ${field}`);
  let bySchema = serializers.get(schema);
  if (bySchema === undefined) serializers.set(schema, (bySchema = new Map()));
  let serialize = bySchema.get(field);
  if (serialize === undefined) {
    const type = getNamedType((schema.getType('Point') as GraphQLObjectType).getFields()[field]!.type) as GraphQLLeafType;
    serialize = (value) => type.serialize(value);
    bySchema.set(field, serialize);
  }
  return (c, i) => {
    const value = cell(c, i);
    return value === null ? null : serialize(value);
  };
}

export function numericValue(kind: PointKind, v: PointValue): number | null {
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

export function longValue(kind: PointKind, v: PointValue): number | bigint | null {
  return kind === 'long' ? (v as number | bigint) : null;
}

export function textValue(kind: PointKind, v: PointValue): string | null {
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

export function pointType(kind: PointKind): GraphQLValueType | null {
  return kind === 'null' ? null : GRAPHQL_TYPE[kind];
}

/**
 * GraphQL's Float cannot carry NaN or an infinity (graphql-js fails the field), and neither can JSON: an aggregate
 * that overflows (a sum past 1.8e308, div, scale, rate) answers null, as the REST API does (src/engine/SEMANTICS.md).
 */
function finiteOrNull(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}
