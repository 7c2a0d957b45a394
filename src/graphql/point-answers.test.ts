/**
 * Point lists rendered whole: the execution schema differs from the contract only in the fields BUILT_LISTS names, a
 * list's text is what the schema serializes, a row's series fields are completed as the executor would, and a long
 * list is written in pieces that give the thread back.
 */
import {
  Kind,
  parse,
  printType,
  type FieldNode,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type OperationDefinitionNode,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PointList, type ComplexValue, type PointKind, type PointValue } from '../engine/point-list.js';
import { AnswerWriter, writeJson, type JsonPieces } from '../http/answer-writer.js';
import { Lane } from '../lib/time-slice.js';
import type { SeriesModel } from './models.js';
import { pointColumn, pointRows, seriesRows } from './point-answers.js';
import { BUILT_LISTS, executionTypeDefs } from './built-lists.js';
import { createGatewaySchemas } from './schema.js';

const { contract, execution } = createGatewaySchemas();

/** What a resolver of `field` is given for `selection`, as the executor would give it. */
function infoFor(
  selection: string,
  fieldName: string,
  variableValues: Record<string, unknown> = {},
): GraphQLResolveInfo {
  const document = parse(
    `query($on: Boolean = true, $tag: String!) { x { ${selection} } } fragment F on Point { v: value } fragment R on Row { t: tag(name: $tag) }`,
  );
  const operation = document.definitions[0] as OperationDefinitionNode;
  const field = operation.selectionSet.selections[0] as FieldNode;
  const fragments = Object.fromEntries(
    document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  return {
    schema: execution,
    fragments,
    operation,
    variableValues,
    fieldNodes: [field],
    fieldName,
  } as unknown as GraphQLResolveInfo;
}

function doubles(n: number): PointList {
  const list = new PointList();
  for (let i = 0; i < n; i++) list.push(i, 'double', i / 2);
  return list;
}

describe('the execution schema', () => {
  it('is the contract but for the lists rendered whole, each one opaque non-null value', () => {
    for (const name of Object.keys(contract.getTypeMap()).filter((n) => !n.startsWith('__'))) {
      const type = contract.getType(name)!;
      const built = BUILT_LISTS[name];
      if (built === undefined) {
        expect(printType(execution.getType(name)!)).toBe(printType(type));
        continue;
      }
      const fields = (execution.getType(name) as GraphQLObjectType).getFields();
      const contractFields = (type as GraphQLObjectType).getFields();
      expect(Object.keys(fields)).toEqual(Object.keys(contractFields));
      for (const field of Object.keys(fields)) {
        expect(String(fields[field]!.type)).toBe(
          built.includes(field) ? 'BuiltList!' : String(contractFields[field]!.type),
        );
        if (built.includes(field)) expect(String(contractFields[field]!.type)).toMatch(/^\[.*\]!$/);
      }
    }
    expect(Object.keys(execution.getTypeMap()).filter((n) => contract.getType(n) === undefined)).toEqual(['BuiltList']);
    expect(String((contract.getType('Series') as GraphQLObjectType).getFields()['points']!.type)).toBe('[Point!]!');
  });

  it('cannot be built when schema.graphql loses a field BUILT_LISTS names', () => {
    const contractWithout = parse(
      'type Query { rows: [Int!]! } type Series { name: String! } type PointColumns { time: [Int!]! epochMs: [Int!]! value: [Float]! long: [Int]! text: [String]! imaginary: [Float]! type: [String]! }',
    );
    expect(() => executionTypeDefs(contractWithout)).toThrow(
      new Error('BUILT_LISTS names fields schema.graphql lacks: Series.points'),
    );
  });
});

/** What the answer carries for a rendered list: its JSON text, written as the answer writer writes it, parsed. */
async function written(list: JsonPieces): Promise<unknown> {
  const out = new AnswerWriter(undefined);
  await writeJson(list, out);
  const text = (await out.finish()).body.join('');
  // JSON.stringify (subscriptions, batches) writes the same value.
  expect(JSON.stringify(list)).toBe(text);
  return JSON.parse(text);
}

describe('rendered point lists', () => {
  it('hold the selected fields under their response keys, in the order the selection asks for them', async () => {
    const rowsText = pointRows(
      doubles(2),
      infoFor(
        '__typename t: time epochMs ...F ... on Point { epochMs } skipped: long @skip(if: true) kept: text @include(if: $on)',
        'points',
        { on: true },
      ),
    );
    const rows = (await written(rowsText)) as Record<string, unknown>[];
    expect(rows).toEqual([
      { __typename: 'Point', t: '1970-01-01T00:00:00.000Z', epochMs: 0, v: 0, kept: null },
      { __typename: 'Point', t: '1970-01-01T00:00:00.001Z', epochMs: 1, v: 0.5, kept: null },
    ]);
    expect(Object.keys(rows[0]!)).toEqual(['__typename', 't', 'epochMs', 'v', 'kept']);
    expect(
      await written(pointRows(doubles(1), infoFor('epochMs kept: text @include(if: $on)', 'points', { on: false }))),
    ).toEqual([{ epochMs: 0 }]);
    expect(
      await written(pointRows(doubles(2), infoFor('kept: text @include(if: $on)', 'points', { on: false }))),
    ).toEqual([{}, {}]);
    expect(await written(pointRows(new PointList(), infoFor('epochMs', 'points')))).toEqual([]);
    expect(await written(pointColumn(new PointList(), infoFor('x', 'epochMs')))).toEqual([]);
  });

  it('serialize every value with the schema: times as ISO text, longs beyond 2^53 as decimal strings', async () => {
    const list = new PointList();
    list.push(-1500, 'long', 2n ** 60n);
    list.push(0, 'long', 7);
    list.push(1, 'complex', { real: 1.5, imaginary: -2 });
    list.push(2, 'null', null);
    list.push(3, 'string', 'a "quoted"\n\u2028 text');
    const rows = await written(pointRows(list, infoFor('time value long text imaginary type', 'points')));
    expect(rows).toEqual([
      {
        time: '1969-12-31T23:59:58.500Z',
        value: 2 ** 60,
        long: '1152921504606846976',
        text: null,
        imaginary: null,
        type: 'LONG',
      },
      { time: '1970-01-01T00:00:00.000Z', value: 7, long: 7, text: null, imaginary: null, type: 'LONG' },
      { time: '1970-01-01T00:00:00.001Z', value: 1.5, long: null, text: null, imaginary: -2, type: 'COMPLEX' },
      { time: '1970-01-01T00:00:00.002Z', value: null, long: null, text: null, imaginary: null, type: null },
      {
        time: '1970-01-01T00:00:00.003Z',
        value: null,
        long: null,
        text: 'a "quoted"\n\u2028 text',
        imaginary: null,
        type: 'STRING',
      },
    ]);
    expect(await written(pointColumn(list, infoFor('time', 'long')))).toEqual([
      '1152921504606846976',
      7,
      null,
      null,
      null,
    ]);
  });

  it('write what the schema serializes for every field, kind and value, kept runs of slices included', async () => {
    const fields = ['time', 'epochMs', 'value', 'long', 'text', 'imaginary', 'type'] as const;
    const point = fc.oneof(
      fc.record({ kind: fc.constant('double' as const), value: fc.double() }),
      fc.record({
        kind: fc.constant('long' as const),
        value: fc.oneof(fc.integer(), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })),
      }),
      fc.record({ kind: fc.constant('string' as const), value: fc.string({ unit: 'grapheme' }) }),
      fc.record({
        kind: fc.constant('complex' as const),
        value: fc.record({ real: fc.double(), imaginary: fc.double() }),
      }),
      fc.record({ kind: fc.constant('null' as const), value: fc.constant(null) }),
    );
    const time = fc.integer({ min: -8.64e15, max: 8.64e15 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(time, point), { maxLength: 40 }),
        fc.array(fc.tuple(time, fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })), { maxLength: 80 }),
        async (pushed, sliced) => {
          const list = new PointList();
          for (const [t, p] of pushed) list.push(t, p.kind, p.value as PointValue);
          // Slices long enough to be kept as runs of their own: doubles, and longs with their exact 64-bit values.
          if (sliced.length >= 32) {
            const key = { metric: 'm', rowTime: 0, dataType: 'kairos_long', tags: {} };
            const timestamps = Float64Array.from(sliced, ([t]) => t);
            list.appendSlice({ key, kind: 'double', timestamps, values: Float64Array.from(sliced, ([t]) => t / 7) });
            list.appendSlice({
              key,
              kind: 'long',
              timestamps,
              values: Float64Array.from(sliced, ([, v]) => Number(v)),
              exact: BigInt64Array.from(sliced, ([, v]) => v),
            });
          }
          const rows = (await written(pointRows(list, infoFor(fields.join(' '), 'points')))) as Record<
            string,
            unknown
          >[];
          // Through JSON, which has no -0.
          expect(rows).toEqual(
            JSON.parse(
              JSON.stringify(list.timestamps.map((t, i) => expectedPoint(t, list.kinds[i]!, list.values[i]!))),
            ),
          );
          for (const field of fields)
            expect(await written(pointColumn(list, infoFor('x', field)))).toEqual(rows.map((row) => row[field]));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("hold the fields of a row's series, completed once per series, beside its point's fields", async () => {
    const series = (name: string, host: string, points: PointList): SeriesModel => ({
      name,
      metric: 'cpu',
      tags: { host: [host], dc: ['eu', 'us'] },
      groupBy: [{ name: 'tag', tags: ['host'], group: { host } }],
      sampleSize: points.length,
      points,
    });
    const selection = `__typename epochMs name ...R host: tag(name: "host") dc: tag(name: "dc") tags { name value }
      group { kind tags { value } } ... on Row { value } skipped: metric @skip(if: $on)`;
    const rows = (await written(
      seriesRows(
        [series('a', 'h1', doubles(2)), series('b', 'h2', doubles(1))],
        infoFor(selection, 'rows', { on: true, tag: 'host' }),
        {},
      ),
    )) as Record<string, unknown>[];
    const h1 = {
      name: 'a',
      t: 'h1',
      host: 'h1',
      dc: null,
      tags: [{ name: 'host', value: 'h1' }],
      group: [{ kind: 'TAG', tags: [{ value: 'h1' }] }],
    };
    expect(rows).toEqual([
      { __typename: 'Row', epochMs: 0, ...h1, value: 0 },
      { __typename: 'Row', epochMs: 1, ...h1, value: 0.5 },
      {
        __typename: 'Row',
        epochMs: 0,
        name: 'b',
        t: 'h2',
        host: 'h2',
        dc: null,
        tags: [{ name: 'host', value: 'h2' }],
        group: [{ kind: 'TAG', tags: [{ value: 'h2' }] }],
        value: 0,
      },
    ]);
    expect(Object.keys(rows[0]!)).toEqual([
      '__typename',
      'epochMs',
      'name',
      't',
      'host',
      'dc',
      'tags',
      'group',
      'value',
    ]);
    expect(await written(seriesRows([series('a', 'h1', doubles(1))], infoFor('time type', 'rows'), {}))).toEqual([
      { time: '1970-01-01T00:00:00.000Z', type: 'DOUBLE' },
    ]);
    expect(
      await written(
        seriesRows(
          [series('a', 'h1', new PointList()), series('b', 'h2', doubles(1))],
          infoFor('host: tag(name: "host") epochMs', 'rows'),
          {},
        ),
      ),
    ).toEqual([{ host: 'h2', epochMs: 0 }]);
  });

  it('write a column of values a span at a time, in pieces of at most 2048 points across runs of every kind', async () => {
    const list = new PointList();
    const expected: (number | null)[] = [];
    const push = (kind: PointKind, value: PointValue, served: number | null) => {
      list.push(list.length, kind, value);
      expected.push(served);
    };
    for (let i = 0; i < 3000; i++)
      push('double', i === 5 ? Number.NaN : i === 2047 ? -Infinity : i / 3, i === 5 || i === 2047 ? null : i / 3);
    const kept = Float64Array.from({ length: 5000 }, (_, i) => (i === 4000 ? Infinity : i * 1.1));
    const key = { metric: 'm', rowTime: 0, dataType: 'kairos_double', tags: {} };
    list.appendSlice(
      { key, kind: 'double', timestamps: Float64Array.from(kept, (_, i) => 3000 + i), values: kept },
      100,
      4500,
    );
    expected.push(...Array.from(kept.subarray(100, 4500), (v) => (Number.isFinite(v) ? v : null)));
    for (let i = 0; i < 10; i++) push('long', i, i);
    for (let i = 1; i <= 2500; i++) push('complex', { real: -i / 7, imaginary: i }, -i / 7);
    push('string', 'x', null);
    const column = pointColumn(list, infoFor('x', 'value'));
    const pieces = [...column.pieces()].map((piece) => piece.toString());
    expect(pieces.map((piece) => piece.split(',').length - 1).every((commas) => commas <= 2048)).toBe(true);
    // Full pieces of 2048 points, then the rest with the closing bracket; a piece comes as two buffers where the
    // renderer began a new buffer within it.
    expect(pieces.length).toBeGreaterThanOrEqual(Math.floor(expected.length / 2048) + 1);
    expect(pieces.join('').split(',')).toHaveLength(expected.length);
    expect(await written(column)).toEqual(expected);
  });

  it('give the thread back while a long list is written', async () => {
    let ran = false;
    setImmediate(() => (ran = true));
    const out = new AnswerWriter(undefined, new Lane());
    const writing = writeJson(pointRows(doubles(1_000_000), infoFor('epochMs value', 'points')), out);
    expect(ran).toBe(false);
    await writing;
    expect(ran).toBe(true);
    const rows = JSON.parse((await out.finish()).body.join('')) as unknown[];
    expect(rows).toHaveLength(1_000_000);
    expect(rows[999_999]).toEqual({ epochMs: 999_999, value: 499_999.5 });
  });
});

/** A point as the contract answers it, from JavaScript's own conversions: the oracle of the rendered text. */
function expectedPoint(t: number, kind: PointKind, value: PointValue): Record<string, unknown> {
  const finite = (v: number) => (Number.isFinite(v) ? v : null);
  const long =
    kind === 'long'
      ? Number.isSafeInteger(Number(value)) && BigInt(Number(value)) === BigInt(value as number | bigint)
        ? Number(value)
        : String(value)
      : null;
  const numeric =
    kind === 'long'
      ? finite(Number(value))
      : kind === 'double'
        ? finite(value as number)
        : kind === 'complex'
          ? finite((value as ComplexValue).real)
          : null;
  return {
    time: new Date(t).toISOString(),
    epochMs: t,
    value: numeric,
    long,
    text: kind === 'string' ? value : null,
    imaginary: kind === 'complex' ? finite((value as ComplexValue).imaginary) : null,
    type: kind === 'null' ? null : kind.toUpperCase(),
  };
}
