/**
 * Points answered as lists rendered whole. `@graphql-tools/executor` resolves and completes every field of every object
 * with a resolve info, an arguments object and a path of its own (what that costs per point object: bench/RESULTS.md,
 * "Figures code comments quoted"), and completes a list of scalars item by item; the points are the bulk of every large
 * answer. So `Series.points`, `Query.rows` and the lists of `PointColumns` leave their resolvers finished: JsonPieces
 * that write the selected fields under their response keys (or a column) straight from the points' columns, as the
 * schema's own scalars and enums serialize them, with no object per point. The executor runs them against an execution
 * schema, the contract with these fields typed as one opaque `BuiltList`, and passes them through whole to the answer
 * writer.
 */
import {
  astFromValue,
  executeSync,
  GraphQLSchema,
  Kind,
  OperationTypeNode,
  typeFromAST,
  visit,
  type DocumentNode,
  type FieldNode,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
} from 'graphql';
// The executor's own rules for which fields a selection asks for (fragments, @skip, @include, response keys).
import { collectSubfields } from 'graphql/execution/collectFields.js';
import type { PointList, RunColumns } from '../engine/point-list.js';
import { JsonPieces } from '../http/answer-writer.js';
import { CLOSE_BRACKET, COMMA, JsonBytes, jsonBytes, OPEN_BRACKET } from '../http/json-bytes.js';
import type { SeriesModel } from './models.js';
import {
  byteCell,
  POINT_FIELDS,
  SPAN_CELLS,
  type ByteCell,
  type ItemWriter,
  type SpanCell,
  type SpanWriter,
} from './point-cells.js';

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
