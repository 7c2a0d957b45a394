/**
 * Point lists built whole: the execution schema differs from the contract only in the fields BUILT_LISTS names, a row's
 * series fields are completed as the executor would, and a long list is built in slices that give the thread back.
 */
import { Kind, parse, printType, type FieldNode, type GraphQLObjectType, type GraphQLResolveInfo, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { PointList } from '../engine/point-list.js';
import { Lane } from '../time-slice.js';
import type { SeriesModel } from './models.js';
import { BUILT_LISTS, executionTypeDefs, pointColumn, pointRows, seriesRows } from './point-answers.js';
import { createGatewaySchemas } from './schema.js';

const { contract, execution } = createGatewaySchemas();

/** What a resolver of `field` is given for `selection`, as the executor would give it. */
function infoFor(selection: string, fieldName: string, variableValues: Record<string, unknown> = {}): GraphQLResolveInfo {
  const document = parse(`query($on: Boolean = true, $tag: String!) { x { ${selection} } } fragment F on Point { v: value } fragment R on Row { t: tag(name: $tag) }`);
  const operation = document.definitions[0] as OperationDefinitionNode;
  const field = operation.selectionSet.selections[0] as FieldNode;
  const fragments = Object.fromEntries(document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
  return { schema: execution, fragments, operation, variableValues, fieldNodes: [field], fieldName } as unknown as GraphQLResolveInfo;
}

function doubles(n: number): PointList {
  const list = new PointList();
  for (let i = 0; i < n; i++) list.push(i, 'double', i / 2);
  return list;
}

describe('the execution schema', () => {
  it('is the contract but for the lists built whole, each one opaque non-null value', () => {
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
        expect(String(fields[field]!.type)).toBe(built.includes(field) ? 'BuiltList!' : String(contractFields[field]!.type));
        if (built.includes(field)) expect(String(contractFields[field]!.type)).toMatch(/^\[.*\]!$/);
      }
    }
    expect(Object.keys(execution.getTypeMap()).filter((n) => contract.getType(n) === undefined)).toEqual(['BuiltList']);
    expect(String((contract.getType('Series') as GraphQLObjectType).getFields()['points']!.type)).toBe('[Point!]!');
  });

  it('cannot be built when schema.graphql loses a field BUILT_LISTS names', () => {
    const contractWithout = parse('type Query { rows: [Int!]! } type Series { name: String! } type PointColumns { time: [Int!]! epochMs: [Int!]! value: [Float]! long: [Int]! text: [String]! imaginary: [Float]! type: [String]! }');
    expect(() => executionTypeDefs(contractWithout)).toThrow(new Error('BUILT_LISTS names fields schema.graphql lacks: Series.points'));
  });
});

describe('built point lists', () => {
  it('hold the selected fields under their response keys, in the order the selection asks for them', async () => {
    const rows = await pointRows(new Lane(), doubles(2), infoFor('__typename t: time epochMs ...F ... on Point { epochMs } skipped: long @skip(if: true) kept: text @include(if: $on)', 'points', { on: true }));
    expect(rows).toEqual([
      { __typename: 'Point', t: '1970-01-01T00:00:00.000Z', epochMs: 0, v: 0, kept: null },
      { __typename: 'Point', t: '1970-01-01T00:00:00.001Z', epochMs: 1, v: 0.5, kept: null },
    ]);
    expect(Object.keys(rows[0]!)).toEqual(['__typename', 't', 'epochMs', 'v', 'kept']);
    const without = await pointRows(new Lane(), doubles(1), infoFor('epochMs kept: text @include(if: $on)', 'points', { on: false }));
    expect(without).toEqual([{ epochMs: 0 }]);
  });

  it('serialize every value with the schema: times as ISO text, longs beyond 2^53 as decimal strings', async () => {
    const list = new PointList();
    list.push(-1500, 'long', 2n ** 60n);
    list.push(0, 'long', 7);
    list.push(1, 'complex', { real: 1.5, imaginary: -2 });
    list.push(2, 'null', null);
    const rows = await pointRows(new Lane(), list, infoFor('time value long imaginary type', 'points'));
    expect(rows).toEqual([
      { time: '1969-12-31T23:59:58.500Z', value: 1152921504606846976, long: '1152921504606846976', imaginary: null, type: 'LONG' },
      { time: '1970-01-01T00:00:00.000Z', value: 7, long: 7, imaginary: null, type: 'LONG' },
      { time: '1970-01-01T00:00:00.001Z', value: 1.5, long: null, imaginary: -2, type: 'COMPLEX' },
      { time: '1970-01-01T00:00:00.002Z', value: null, long: null, imaginary: null, type: null },
    ]);
    expect(await pointColumn(new Lane(), list, infoFor('time', 'long'))).toEqual(['1152921504606846976', 7, null, null]);
  });

  it('hold the fields of a row\'s series, completed once per series, beside its point\'s fields', async () => {
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
    const rows = await seriesRows(new Lane(), [series('a', 'h1', doubles(2)), series('b', 'h2', doubles(1))], infoFor(selection, 'rows', { on: true, tag: 'host' }), {});
    const h1 = { name: 'a', t: 'h1', host: 'h1', dc: null, tags: [{ name: 'host', value: 'h1' }], group: [{ kind: 'TAG', tags: [{ value: 'h1' }] }] };
    expect(rows).toEqual([
      { __typename: 'Row', epochMs: 0, ...h1, value: 0 },
      { __typename: 'Row', epochMs: 1, ...h1, value: 0.5 },
      { __typename: 'Row', epochMs: 0, name: 'b', t: 'h2', host: 'h2', dc: null, tags: [{ name: 'host', value: 'h2' }], group: [{ kind: 'TAG', tags: [{ value: 'h2' }] }], value: 0 },
    ]);
    expect(Object.keys(rows[0]!)).toEqual(['__typename', 'epochMs', 'name', 't', 'host', 'dc', 'tags', 'group', 'value']);
    expect(await seriesRows(new Lane(), [series('a', 'h1', doubles(1))], infoFor('time type', 'rows'), {})).toEqual([{ time: '1970-01-01T00:00:00.000Z', type: 'DOUBLE' }]);
  });

  it('give the thread back while a long list is built', async () => {
    let ran = false;
    setImmediate(() => (ran = true));
    const ranBeforeTheEnd = await pointRows(new Lane(), doubles(1_000_000), infoFor('epochMs value', 'points')).then((rows) => {
      expect(rows).toHaveLength(1_000_000);
      expect(rows[999_999]).toEqual({ epochMs: 999_999, value: 499_999.5 });
      return ran;
    });
    expect(ranBeforeTheEnd).toBe(true);
  });
});
