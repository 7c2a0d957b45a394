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
import type { AggregatorSpec, GroupBySpec } from '../model/query.js';
import type { GraphQLContext } from './context.js';
import { timeArg } from './arguments.js';

/** `least_squares` → `leastSquares`: GraphQL names of KairosDB's wire names. */
export function camelCase(wire: string): string {
  return wire.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

const BY_FIELD = new Map(AGGREGATORS.map((definition) => [camelCase(definition.name), definition]));

/** The aggregator an AggregatorInput names (its one field: @oneOf guarantees exactly one is set) and its options. */
export function aggregatorOf(input: AggregatorInput): {
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
    if (definition.params.length === 0) {
      if (options !== true) throw new InputError(path, options, 'must be true: the aggregator takes no options');
      return { name: definition.name, params: {} };
    }
    return {
      name: definition.name,
      params: wireParams(ctx, definition.params, options as Record<string, unknown>, path),
    };
  });
}

/** The GraphQL fields of GroupByInput and the group-bys they stand for, in the order their specs are listed. */
export const GROUP_BY_FIELDS = { tags: 'tag', time: 'time', valueRangeSize: 'value', bins: 'bin' } as const;

export type GroupByField = keyof typeof GROUP_BY_FIELDS;

/** The fields `input` sets, in GROUP_BY_FIELDS order: the i-th is the i-th spec `groupBySpecs` makes. */
export function givenGroupByFields(input: GroupByInput | null | undefined): GroupByField[] {
  return (Object.keys(GROUP_BY_FIELDS) as GroupByField[]).filter((field) => input?.[field] != null);
}

export function groupBySpecs(input: GroupByInput | null | undefined): GroupBySpec[] {
  return givenGroupByFields(input).map((field): GroupBySpec => {
    switch (field) {
      case 'tags':
        return { name: 'tag', params: { tags: input!.tags } };
      case 'time':
        return {
          name: 'time',
          params: { range_size: duration(input!.time!.rangeSize), group_count: input!.time!.groupCount },
        };
      case 'valueRangeSize':
        return { name: 'value', params: { range_size: input!.valueRangeSize } };
      case 'bins':
        return { name: 'bin', params: { bins: input!.bins } };
      default:
        throw new Error(`unknown group-by field ${String(field satisfies never)}`);
    }
  });
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
