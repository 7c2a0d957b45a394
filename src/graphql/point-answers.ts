/**
 * Points answered as lists built whole. `@graphql-tools/executor` resolves and completes every field of every object
 * with a resolve info, an arguments object and a path of its own (about 3 KB and 0.9 µs per point object), and
 * completes a list of scalars item by item; the points are the bulk of every large answer. So `Series.points`,
 * `Query.rows` and the lists of `PointColumns` leave their resolvers finished: plain objects holding the selected
 * fields under their response keys, or columns, every value serialized by the schema's own scalar or enum. The
 * executor runs them against an execution schema, the contract with these fields typed as one opaque `BuiltList`,
 * and passes them through whole; the answer writer writes them in runs of one JSON.stringify call each.
 */
import {
  astFromValue,
  executeSync,
  GraphQLScalarType,
  GraphQLSchema,
  getNamedType,
  Kind,
  OperationTypeNode,
  typeFromAST,
  visit,
  type DocumentNode,
  type FieldNode,
  type GraphQLInputType,
  type GraphQLLeafType,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type NonNullTypeNode,
} from 'graphql';
// The executor's own rules for which fields a selection asks for (fragments, @skip, @include, response keys).
import { collectSubfields } from 'graphql/execution/collectFields.js';
import { valueAt, type ComplexValue, type PointKind, type PointList, type PointValue, type RunColumns } from '../engine/point-list.js';
import type { ValueType as GraphQLValueType } from '../generated/graphql.js';
import type { SeriesModel } from './models.js';
import { yieldIfDue, type Lane } from '../time-slice.js';

/** The fields whose lists their resolvers build whole, by type: in the execution schema each is a `BuiltList!`. */
export const BUILT_LISTS: Readonly<Record<string, readonly string[]>> = {
  Query: ['rows'],
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
type Cell<T> = (columns: RunColumns, i: number) => T;

const timeAt: Cell<number> = (c, i) => c.timestamps[i]!;

/**
 * Every field of `Point` (and so every column of `PointColumns`, and the fields of the same names of `Row`): its value
 * before the schema serializes it.
 */
const POINT_FIELDS: Readonly<Record<string, Cell<unknown>>> = {
  time: timeAt,
  epochMs: timeAt,
  value: (c, i) => numericValue(c.kind, valueAt(c, i)),
  long: (c, i) => longValue(c.kind, valueAt(c, i)),
  text: (c, i) => textValue(c.kind, valueAt(c, i)),
  imaginary: (c, i) => imaginaryValue(c.kind, valueAt(c, i)),
  type: (c) => pointType(c.kind),
};

/** A point of `Series.points` or a row of `rows` as answered: the selected fields' values under their response keys. */
export type PointRow = Readonly<Record<string, unknown>>;

/** `Series.points`: one plain object per point, with the fields the selection asks for under its response keys. */
export function pointRows(lane: Lane, points: PointList, info: GraphQLResolveInfo): Promise<PointRow[]> {
  return objectsBuilt(lane, [points], info, info.schema.getType('Point') as GraphQLObjectType);
}

/**
 * `Query.rows`: one plain object per point of every series, series after series. A row's point fields are Point's;
 * the fields of its series (name, metric, tags, tag(name:), group) are the same for all its rows, so graphql-js
 * completes them once per series, running the row's selection of them against a schema whose root is `Row`.
 */
export function seriesRows(lane: Lane, series: readonly SeriesModel[], info: GraphQLResolveInfo, context: unknown): Promise<PointRow[]> {
  const row = info.schema.getType('Row') as GraphQLObjectType;
  return objectsBuilt(lane, series.map((s) => s.points), info, row, (fields) => series.map(seriesFields(info, row, fields, context)));
}

/**
 * One object of `type` per point of the lists, with the fields the selection asks for under their response keys: a
 * point's field from its cell, any other from `shared`, which completes those fields once for each list.
 */
function objectsBuilt(
  lane: Lane,
  lists: readonly PointList[],
  info: GraphQLResolveInfo,
  type: GraphQLObjectType,
  shared?: (fields: FieldNode[]) => readonly PointRow[],
): Promise<PointRow[]> {
  const { keys, cells, others } = selectedCells(info, type);
  if (others.length > 0 && shared === undefined) throw new Error(`${type.name}.${others[0]!.name.value} is not a field of a point`);
  const fixed = others.length > 0 ? shared!(others) : [];
  return built(lane, lists, (c, i, n) => {
    const object: Record<string, unknown> = {};
    for (let k = 0; k < keys.length; k++) {
      const cell = cells[k];
      object[keys[k]!] = cell === undefined ? fixed[n]![keys[k]!] : cell(c, i);
    }
    return object;
  });
}

/** A list of `PointColumns`: the column of the `Point` field of the same name. */
export function pointColumn(lane: Lane, points: PointList, info: GraphQLResolveInfo): Promise<unknown[]> {
  return built(lane, [points], servedCell(info.schema.getType('Point') as GraphQLObjectType, info.fieldName));
}

/**
 * The fields a list's selection asks of each of its `type` objects (graphql-js's own rules: fragments, @skip,
 * @include), by response key: a point's field as its cell, `__typename`, or else (undefined) one of `others`.
 */
function selectedCells(info: GraphQLResolveInfo, type: GraphQLObjectType): { keys: string[]; cells: (Cell<unknown> | undefined)[]; others: FieldNode[] } {
  const selected = collectSubfields(info.schema, info.fragments, info.variableValues, type, info.fieldNodes);
  const keys: string[] = [];
  const cells: (Cell<unknown> | undefined)[] = [];
  const others: FieldNode[] = [];
  for (const [key, nodes] of selected) {
    const name = nodes[0]!.name.value;
    keys.push(key);
    if (name === '__typename') cells.push(() => type.name);
    else if (POINT_FIELDS[name] !== undefined) cells.push(servedCell(type, name));
    else {
      cells.push(undefined);
      others.push(...nodes);
    }
  }
  return { keys, cells, others };
}

/** Schemas whose query root is a `Row` type, to complete the fields of a row's series. */
const rowRoots = new WeakMap<GraphQLObjectType, GraphQLSchema>();

/**
 * The `fields` of `row` (not a point's) for a series, completed by graphql-js as the executor would: their
 * arguments and directives with the operation's variables written in as literals, since this runs as an operation
 * of its own.
 */
function seriesFields(info: GraphQLResolveInfo, row: GraphQLObjectType, fields: readonly FieldNode[], context: unknown): (series: SeriesModel) => PointRow {
  let schema = rowRoots.get(row);
  if (schema === undefined) rowRoots.set(row, (schema = new GraphQLSchema({ query: row })));
  const operation = { kind: Kind.OPERATION_DEFINITION, operation: OperationTypeNode.QUERY, selectionSet: { kind: Kind.SELECTION_SET, selections: fields } } as const;
  const document = withVariablesWritten({ kind: Kind.DOCUMENT, definitions: [operation, ...Object.values(info.fragments)] }, info);
  return (series) => {
    const result = executeSync({ schema, document, rootValue: { series }, contextValue: context });
    if (result.errors !== undefined && result.errors.length > 0) throw result.errors[0];
    return result.data!;
  };
}

/** `document` with each variable the operation was given replaced by its coerced value as a literal. */
function withVariablesWritten(document: DocumentNode, info: GraphQLResolveInfo): DocumentNode {
  const types = new Map((info.operation.variableDefinitions ?? []).map((d) => [d.variable.name.value, typeFromAST(info.schema, d.type) as GraphQLInputType | undefined]));
  return visit(document, {
    Variable(node) {
      const type = types.get(node.name.value);
      if (type === undefined || !Object.hasOwn(info.variableValues, node.name.value)) return undefined;
      return astFromValue(info.variableValues[node.name.value], type) ?? undefined;
    },
  });
}

/** Items between two checks of the time slice: a few hundred microseconds of building. */
const ITEMS_PER_CHECK = 2048;

/** Each point of the lists as `make` builds it (given the list's index), in order; yields the thread between slices. */
async function built<T>(lane: Lane, lists: readonly PointList[], make: (columns: RunColumns, i: number, list: number) => T): Promise<T[]> {
  const items = new Array<T>(lists.reduce((n, list) => n + list.length, 0));
  let k = 0;
  for (let n = 0; n < lists.length; n++) {
    for (const { columns, from, to } of lists[n]!.runs) {
      for (let i = from; i < to; i++) {
        if (k % ITEMS_PER_CHECK === 0) {
          const turn = yieldIfDue(lane);
          if (turn !== undefined) await turn;
        }
        items[k++] = make(columns, i, n);
      }
    }
  }
  return items;
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
