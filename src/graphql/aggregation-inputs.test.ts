/**
 * The GraphQL aggregation inputs and the engine's tables must agree: every KairosDB aggregator has an
 * AggregatorInput field whose options are exactly its parameters, and every group-by has a GroupByInput field.
 */
import { readFileSync } from 'node:fs';
import { buildSchema, isInputObjectType, isScalarType, type GraphQLInputObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { AGGREGATORS } from '../engine/aggregators/registry.js';
import { GROUP_BYS } from '../engine/group-by/registry.js';
import { camelCase, GROUP_BY_FIELDS } from './aggregation-inputs.js';
import { SCHEMA_PATH } from './schema.js';

const schema = buildSchema(readFileSync(SCHEMA_PATH, 'utf8'));
const input = (name: string) => schema.getType(name) as GraphQLInputObjectType;

describe('AggregatorInput', () => {
  const fields = input('AggregatorInput').getFields();

  it('has one field per aggregator of the engine, and no other', () => {
    expect(Object.keys(fields).sort()).toEqual(AGGREGATORS.map((a) => camelCase(a.name)).sort());
  });

  it.each(AGGREGATORS.map((a) => [a.name, a] as const))("offers exactly %s's parameters", (_, definition) => {
    const type = fields[camelCase(definition.name)]!.type;
    if (definition.params.length === 0) {
      expect(isScalarType(type) && type.name).toBe('Boolean');
      return;
    }
    expect(isInputObjectType(type)).toBe(true);
    const options = Object.keys((type as GraphQLInputObjectType).getFields()).sort();
    expect(options).toEqual(definition.params.map((p) => camelCase(p.name)).sort());
  });

  it('marks required parameters as non-null options', () => {
    for (const definition of AGGREGATORS.filter((a) => a.params.length > 0)) {
      const options = (fields[camelCase(definition.name)]!.type as GraphQLInputObjectType).getFields();
      for (const param of definition.params) {
        expect(String(options[camelCase(param.name)]!.type).endsWith('!'), `${definition.name}.${param.name}`).toBe(
          param.required === true,
        );
      }
    }
  });
});

it('has a GroupByInput field for every KairosDB group-by', () => {
  expect(Object.keys(input('GroupByInput').getFields()).sort()).toEqual(Object.keys(GROUP_BY_FIELDS).sort());
  const wire = GROUP_BYS.map((g) => g.name).filter((name) => name !== 'series');
  expect(Object.values(GROUP_BY_FIELDS).sort()).toEqual(wire.sort());
});
