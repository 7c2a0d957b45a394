/**
 * Points answered as lists rendered whole. `@graphql-tools/executor` resolves and completes every field of every
 * object with a resolve info, an arguments object and a path of its own (about 3 KB and 0.9 µs per point object), and
 * completes a list of scalars item by item; the points are the bulk of every large answer. So `Series.points`,
 * `Query.rows` and the lists of `PointColumns` leave their resolvers finished: JsonPieces that write the selected
 * fields under their response keys (or a column) straight from the points' columns, as the schema's own scalars and
 * enums serialize them, with no object per point. The executor runs them against an execution schema, the contract
 * with these fields typed as one opaque `BuiltList`, and passes them through whole to the answer writer.
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
import {
  longAt,
  valueAt,
  type ComplexValue,
  type PointKind,
  type PointList,
  type PointValue,
  type RunColumns,
} from '../engine/point-list.js';
import type { ValueType as GraphQLValueType } from '../generated/graphql.js';
import { JsonPieces } from '../http/answer-writer.js';
import { CLOSE_BRACKET, COMMA, JsonBytes, jsonBytes, NULL, NumberRun, OPEN_BRACKET } from '../http/json-bytes.js';
import type { SeriesModel } from './models.js';

/** The fields whose lists their resolvers build whole, by type: in the execution schema each is a `BuiltList!`. */
export const BUILT_LISTS: Readonly<Record<string, readonly string[]>> = {
  Query: ['rows'],
  Series: ['points'],
  PointColumns: ['time', 'epochMs', 'value', 'long', 'text', 'imaginary', 'type'],
};

/** A list its resolver made (JsonPieces): the executor passes it on as it is. It is never an input. */
export const BuiltListScalar = new GraphQLScalarType<JsonPieces, JsonPieces>({
  name: 'BuiltList',
  serialize: (value) => value as JsonPieces,
  parseValue() {
    throw new TypeError('BuiltList is an output type');
  },
  parseLiteral() {
    throw new TypeError('BuiltList is an output type');
  },
});

const BUILT_LIST_TYPE: NonNullTypeNode = {
  kind: Kind.NON_NULL_TYPE,
  type: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: BuiltListScalar.name } },
};

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
  const missing = Object.entries(BUILT_LISTS)
    .flatMap(([type, fields]) => fields.map((field) => `${type}.${field}`))
    .filter((f) => !replaced.has(f));
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

/** Writes point `i` of a run as JSON: one field of it, or the whole object. */
type ItemWriter = (out: JsonBytes, i: number) => void;

/** A point's field written as JSON, for the points of one run: made once per run, then called for each point. */
type ByteCell = (columns: RunColumns) => ItemWriter;

/** Writes points [from, to) of a run as items of a JSON array (a field of each, separated by commas). */
type SpanWriter = (out: JsonBytes, from: number, to: number) => void;

/** A column written a span of points at a time, for the runs it can write so: the same text as its ByteCell's. */
type SpanCell = (columns: RunColumns) => SpanWriter | undefined;

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
const SPAN_CELLS: Readonly<Record<string, SpanCell>> = {
  value: (columns) =>
    columns.kind === 'double' || columns.kind === 'complex'
      ? (out, from, to) => out.numbers(columns.values, from, to)
      : undefined,
};

/** codegen.yml's model of `Point`: a point's fields under their response keys. No resolver makes one: points are rendered. */
export type PointRow = Readonly<Record<string, unknown>>;

/** `Series.points`: one JSON object per point, with the fields the selection asks for under its response keys. */
export function pointRows(points: PointList, info: GraphQLResolveInfo): PointObjects {
  return pointObjects([points], info, info.schema.getType('Point') as GraphQLObjectType);
}

/**
 * `Query.rows`: one JSON object per point of every series, series after series. A row's point fields are Point's;
 * the fields of its series (name, metric, tags, tag(name:), group) are the same for all its rows, so graphql-js
 * completes them once per series, running the row's selection of them against a schema whose root is `Row`.
 */
export function seriesRows(series: readonly SeriesModel[], info: GraphQLResolveInfo, context: unknown): PointObjects {
  const row = info.schema.getType('Row') as GraphQLObjectType;
  return pointObjects(
    series.map((s) => s.points),
    info,
    row,
    (fields) => series.map(seriesFields(info, row, fields, context)),
  );
}

/**
 * One object of `type` per point of the lists, with the fields the selection asks for under their response keys: a
 * point's field from its cell, any other from `shared`, which completes those fields once for each list.
 */
function pointObjects(
  lists: readonly PointList[],
  info: GraphQLResolveInfo,
  type: GraphQLObjectType,
  shared?: (fields: FieldNode[]) => readonly PointRow[],
): PointObjects {
  const { keys, cells, others } = selectedCells(info, type);
  if (others.length > 0 && shared === undefined)
    throw new Error(`${type.name}.${others[0]!.name.value} is not a field of a point`);
  const fixed = others.length > 0 ? shared!(others) : [];
  // Each list's object as its text between its point fields: keys, punctuation and the list's shared fields.
  const texts = lists.map((_, n) => {
    const between = ['{'];
    keys.forEach((key, k) => {
      between[between.length - 1] += `${k === 0 ? '' : ','}${JSON.stringify(key)}:`;
      if (cells[k] === undefined) between[between.length - 1] += JSON.stringify(fixed[n]![key]);
      else between.push('');
    });
    between[between.length - 1] += '}';
    return between.map(jsonBytes);
  });
  return new PointObjects(
    lists,
    cells.filter((cell) => cell !== undefined),
    texts,
  );
}

/** Points per piece: a few hundred microseconds of rendering between two chances to yield. */
const POINTS_PER_PIECE = 2048;

/**
 * A JSON array of every point of the lists, each written by what `itemOf` makes for its run, or several at once by
 * what `spanOf` makes, where it makes one; pieces of POINTS_PER_PIECE.
 */
function* listPieces(
  lists: readonly PointList[],
  itemOf: (list: number, columns: RunColumns) => ItemWriter,
  spanOf?: (columns: RunColumns) => SpanWriter | undefined,
): Iterable<Buffer> {
  const out = new JsonBytes();
  let count = 0;
  out.byte(OPEN_BRACKET);
  for (let n = 0; n < lists.length; n++) {
    for (const { columns, from, to } of lists[n]!.runs) {
      const span = spanOf?.(columns);
      if (span !== undefined) {
        for (let i = from; i < to; ) {
          const end = Math.min(to, i + POINTS_PER_PIECE - (count % POINTS_PER_PIECE));
          if (count > 0) out.byte(COMMA);
          span(out, i, end);
          count += end - i;
          i = end;
          if (count % POINTS_PER_PIECE === 0) yield* out.take();
        }
        continue;
      }
      const write = itemOf(n, columns);
      for (let i = from; i < to; i++) {
        if (count > 0) out.byte(COMMA);
        write(out, i);
        if (++count % POINTS_PER_PIECE === 0) yield* out.take();
      }
    }
  }
  out.byte(CLOSE_BRACKET);
  yield* out.take();
}

/**
 * The points of some lists as JSON objects: the point fields' `cells`, and around them each list's `texts` (keys,
 * punctuation, the fields shared by the list's points), one more than the cells.
 */
export class PointObjects extends JsonPieces {
  constructor(
    private readonly lists: readonly PointList[],
    private readonly cells: readonly ByteCell[],
    private readonly texts: readonly (readonly Uint8Array[])[],
  ) {
    super();
  }

  pieces(): Iterable<Buffer> {
    const cells = this.cells.length;
    return listPieces(this.lists, (n, columns) => {
      const texts = this.texts[n]!;
      const writers = this.cells.map((cell) => cell(columns));
      return (out, i) => {
        for (let k = 0; k < cells; k++) {
          out.bytes(texts[k]!);
          writers[k]!(out, i);
        }
        out.bytes(texts[cells]!);
      };
    });
  }
}

/** A list of `PointColumns`: the column of the `Point` field of the same name. */
export function pointColumn(points: PointList, info: GraphQLResolveInfo): PointColumn {
  return new PointColumn(
    points,
    byteCell(info.schema.getType('Point') as GraphQLObjectType, info.fieldName),
    SPAN_CELLS[info.fieldName],
  );
}

/** One field of every point of a list, as a JSON array. */
export class PointColumn extends JsonPieces {
  constructor(
    private readonly points: PointList,
    private readonly cell: ByteCell,
    private readonly span?: SpanCell,
  ) {
    super();
  }

  pieces(): Iterable<Buffer> {
    return listPieces([this.points], (_, columns) => this.cell(columns), this.span);
  }
}

/**
 * The fields a list's selection asks of each of its `type` objects (graphql-js's own rules: fragments, @skip,
 * @include), by response key: a point's field as its cell, `__typename`, or else (undefined) one of `others`.
 */
function selectedCells(
  info: GraphQLResolveInfo,
  type: GraphQLObjectType,
): { keys: string[]; cells: (ByteCell | undefined)[]; others: FieldNode[] } {
  const selected = collectSubfields(info.schema, info.fragments, info.variableValues, type, info.fieldNodes);
  const keys: string[] = [];
  const cells: (ByteCell | undefined)[] = [];
  const others: FieldNode[] = [];
  for (const [key, nodes] of selected) {
    const name = nodes[0]!.name.value;
    keys.push(key);
    if (name === '__typename') {
      const typename = jsonBytes(JSON.stringify(type.name));
      cells.push(() => (out) => out.bytes(typename));
    } else if (POINT_FIELDS[name] !== undefined) cells.push(byteCell(type, name));
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
function seriesFields(
  info: GraphQLResolveInfo,
  row: GraphQLObjectType,
  fields: readonly FieldNode[],
  context: unknown,
): (series: SeriesModel) => PointRow {
  let schema = rowRoots.get(row);
  if (schema === undefined) rowRoots.set(row, (schema = new GraphQLSchema({ query: row })));
  const operation = {
    kind: Kind.OPERATION_DEFINITION,
    operation: OperationTypeNode.QUERY,
    selectionSet: { kind: Kind.SELECTION_SET, selections: fields },
  } as const;
  const document = withVariablesWritten(
    { kind: Kind.DOCUMENT, definitions: [operation, ...Object.values(info.fragments)] },
    info,
  );
  return (series) => {
    const result = executeSync({ schema, document, rootValue: { series }, contextValue: context });
    if (result.errors !== undefined && result.errors.length > 0) throw result.errors[0];
    return result.data!;
  };
}

/** `document` with each variable the operation was given replaced by its coerced value as a literal. */
function withVariablesWritten(document: DocumentNode, info: GraphQLResolveInfo): DocumentNode {
  const types = new Map(
    (info.operation.variableDefinitions ?? []).map((d) => [
      d.variable.name.value,
      typeFromAST(info.schema, d.type) as GraphQLInputType | undefined,
    ]),
  );
  return visit(document, {
    Variable(node) {
      const type = types.get(node.name.value);
      if (type === undefined || !Object.hasOwn(info.variableValues, node.name.value)) return undefined;
      return astFromValue(info.variableValues[node.name.value], type) ?? undefined;
    },
  });
}

/** A point field of `type` as JSON: its fast cell, or its served value stringified. */
function byteCell(type: GraphQLObjectType, field: string): ByteCell {
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
