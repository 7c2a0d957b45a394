/**
 * GraphQL's typed aggregator and group-by inputs → the query model's wire-form specs. The conversion walks the
 * engine's own parameter tables, so a GraphQL field and a KairosDB parameter cannot drift apart unnoticed (a test
 * checks the schema against the tables).
 */
import { dict } from '../lib/dict.js';
import { InputError } from '../model/errors.js';
import type { AggregatorDefinition } from '../engine/aggregators/aggregator.js';
import { AGGREGATORS } from '../engine/aggregators/registry.js';
import type { ParamSpec } from '../engine/params.js';
import type { AggregatorInput, GroupByInput } from '../generated/graphql.js';
import { within, type AggregatorSpec, type FieldNames, type GroupBySpec } from '../model/query.js';
import { GROUP_BYS } from '../engine/group-by/registry.js';
import type { GraphQLContext } from './context.js';
import { timeArg } from './arguments.js';

/** `least_squares` → `leastSquares`: GraphQL names of KairosDB's wire names. */
export function camelCase(wire: string): string {
  return wire.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

const BY_FIELD = new Map(AGGREGATORS.map((definition) => [camelCase(definition.name), definition]));

/** The aggregator an AggregatorInput names (its one field: @oneOf guarantees exactly one is set) and its options. */
function aggregatorOf(input: AggregatorInput): {
  field: string;
  options: unknown;
  definition: AggregatorDefinition;
} {
  const [field, options] = Object.entries(input).find(([, v]) => v !== null && v !== undefined)!;
  return { field, options, definition: BY_FIELD.get(field)! };
}

export function aggregatorSpecs(
  ctx: GraphQLContext,
  inputs: readonly AggregatorInput[] | null | undefined,
): AggregatorSpec[] {
  return (inputs ?? []).map((input, i) => {
    const { field, options, definition } = aggregatorOf(input);
    const path = `aggregators[${i}].${field}`;
    const fields = aggregatorFields(path, field, definition, options);
    if (definition.params.length === 0) {
      if (options !== true) throw new InputError(path, options, 'must be true: the aggregator takes no options');
      return { name: definition.name, params: {}, fields };
    }
    return {
      name: definition.name,
      params: wireParams(ctx, definition.params, options as Record<string, unknown>, path),
      fields,
    };
  });
}

/**
 * An aggregator's fields as its AggregatorInput names them: the aggregator is its one field
 * (`aggregators[1].leastSquares`), parameters are camelCase under it, and an entry of a map-valued parameter (save_as
 * tags) is an item of GraphQL's [{name, value}] list.
 */
function aggregatorFields(path: string, field: string, definition: AggregatorDefinition, options: unknown): FieldNames {
  return {
    path,
    name: field,
    param(name, key) {
      if (name === 'name') return path;
      const option = camelCase(name);
      const at = `${path}.${option}`;
      const spec = definition.params.find((p) => p.name === name);
      if (spec?.type === 'string map' && typeof key === 'string') {
        const entries = ((options as Record<string, unknown>)[option] ?? []) as readonly { name: string }[];
        const k = entries.findIndex((entry) => entry.name === key);
        if (k >= 0) return `${at}[${k}]`;
      }
      return at + within(key);
    },
  };
}

/** The GraphQL fields of GroupByInput and the group-bys they stand for, in the order their specs are listed. */
export const GROUP_BY_FIELDS = { tags: 'tag', time: 'time', valueRangeSize: 'value', bins: 'bin' } as const;

type GroupByField = keyof typeof GROUP_BY_FIELDS;

/** The fields `input` sets, in GROUP_BY_FIELDS order: the i-th is the i-th spec `groupBySpecs` makes. */
function givenGroupByFields(input: GroupByInput | null | undefined): GroupByField[] {
  return (Object.keys(GROUP_BY_FIELDS) as GroupByField[]).filter((field) => input?.[field] != null);
}

export function groupBySpecs(input: GroupByInput | null | undefined): GroupBySpec[] {
  return givenGroupByFields(input).map((field): GroupBySpec => {
    const fields = groupByFields(field);
    switch (field) {
      case 'tags':
        return { name: 'tag', params: { tags: input!.tags }, fields };
      case 'time':
        return {
          name: 'time',
          params: { range_size: duration(input!.time!.rangeSize), group_count: input!.time!.groupCount },
          fields,
        };
      case 'valueRangeSize':
        return { name: 'value', params: { range_size: input!.valueRangeSize }, fields };
      case 'bins':
        return { name: 'bin', params: { bins: input!.bins }, fields };
      default:
        throw new Error(`unknown group-by field ${String(field satisfies never)}`);
    }
  });
}

/**
 * A group-by's fields as GroupByInput names them: a group-by of one parameter is its field (`groupBy.bins[2]`), one of
 * several an object of camelCase fields (`groupBy.time.rangeSize`).
 */
function groupByFields(field: GroupByField): FieldNames {
  const path = `groupBy.${field}`;
  const definition = GROUP_BYS.find((g) => g.name === GROUP_BY_FIELDS[field])!;
  return {
    path,
    name: field,
    param(name, key) {
      if (name === 'name') return path;
      return (definition.params.length === 1 ? path : `${path}.${camelCase(name)}`) + within(key);
    },
  };
}

function wireParams(
  ctx: GraphQLContext,
  specs: readonly ParamSpec[],
  options: Record<string, unknown>,
  path: string,
): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const spec of specs) {
    const field = camelCase(spec.name);
    const value = options[field];
    if (value === null || value === undefined) continue;
    params[spec.name] = wireValue(ctx, spec, value, `${path}.${field}`);
  }
  return params;
}

function wireValue(ctx: GraphQLContext, spec: ParamSpec, value: unknown, path: string): unknown {
  switch (spec.type) {
    case 'duration':
      return duration(value as { value: number; unit: string });
    case 'enum':
    case 'unit':
      // GraphQL enums are upper case; the engine matches KairosDB's lower-case values case-insensitively.
      return (value as string).toLowerCase();
    case 'epoch ms':
      return timeArg(ctx, value as string | number, path);
    case 'string map': {
      const map = dict<string>();
      (value as { name: string; value: string }[]).forEach((tag, k) => {
        if (Object.hasOwn(map, tag.name)) throw new InputError(`${path}[${k}].name`, tag.name, 'is given twice');
        map[tag.name] = tag.value;
      });
      return map;
    }
    case 'thresholds':
      return (value as { value: number; boundary: string }[]).map((t) => ({
        value: t.value,
        boundary: t.boundary.toLowerCase(),
      }));
    default:
      return value;
  }
}

function duration(value: { value: number; unit: string }): { value: number; unit: string } {
  return { value: value.value, unit: value.unit.toLowerCase() };
}
