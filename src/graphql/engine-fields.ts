/**
 * The way back from the engine's field paths, spelled in KairosDB's wire names (`time_zone`, `tags[0].regex`,
 * `aggregators[1].align_sampling`, `group_by[0].range_size`), to the GraphQL arguments a query was built from
 * (`timeZone`, `where[0].regex` or `where[0].eq`, `aggregators[1].avg.alignSampling`, `groupBy.time.rangeSize`).
 */
import { InputError } from '../model/errors.js';
import { GROUP_BYS } from '../engine/group-by/registry.js';
import type { AggregatorInput, GroupByInput, TagMatch } from '../generated/graphql.js';
import { aggregatorOf, camelCase, GROUP_BY_FIELDS, givenGroupByFields } from './aggregation-inputs.js';
import { inWhereTerms } from './arguments.js';

/** The GraphQL arguments behind a query's tag filter, aggregator and group-by specs. */
export interface EngineQueryArgs {
  readonly where?: readonly TagMatch[] | null;
  readonly aggregators?: readonly AggregatorInput[] | null;
  readonly groupBy?: GroupByInput | null;
}

/** Runs a query built from `args`, re-homing the engine's input errors under GraphQL's names. */
export async function withGraphQLFields<T>(args: EngineQueryArgs, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw error instanceof InputError ? inGraphQLTerms(error, args) : error;
  }
}

/** The same complaint, about the GraphQL argument the engine's field came from. */
export function inGraphQLTerms(error: InputError, args: EngineQueryArgs): InputError {
  const { field, value } = graphqlField(error.field, error.value, args);
  const renamed = field === error.field && value === error.value ? error : new InputError(field, value, error.reason);
  return inWhereTerms(renamed, args.where);
}

/** The query model's own fields that GraphQL names differently; the rest (`metric`, `limit`) share a name. */
const TOP_LEVEL: Readonly<Record<string, string>> = { time_zone: 'timeZone', tags: 'where' };

const ITEM = /^(aggregators|group_by)\[(\d+)\](?:\.([^.[]+))?(.*)$/;

function graphqlField(field: string, value: unknown, args: EngineQueryArgs): { field: string; value: unknown } {
  const item = ITEM.exec(field);
  if (item === null) {
    const head = /^[^.[]+/.exec(field)![0];
    return { field: (TOP_LEVEL[head] ?? head) + field.slice(head.length), value };
  }
  const [, list, index, param, rest] = item as unknown as [string, string, string, string | undefined, string];
  const i = Number(index);
  if (list === 'aggregators') {
    const input = args.aggregators?.[i];
    return input === undefined ? { field, value } : aggregatorField(input, i, param, rest, value);
  }
  const groupBy = givenGroupByFields(args.groupBy)[i];
  return groupBy === undefined ? { field, value } : { field: groupByField(groupBy, param, rest), value };
}

/**
 * `aggregators[i]` (a stage failing at run time) and `aggregators[i].name` name the aggregator: its GraphQL field,
 * and a wire name as value becomes that field's name too. Parameters are camelCase under the aggregator's field;
 * a key of a string map (save_as tags) is an entry of GraphQL's [{name, value}] list.
 */
function aggregatorField(
  input: AggregatorInput,
  i: number,
  param: string | undefined,
  rest: string,
  value: unknown,
): { field: string; value: unknown } {
  const { field: name, options, definition } = aggregatorOf(input);
  const base = `aggregators[${i}].${name}`;
  if (param === undefined || param === 'name') {
    return {
      field: base + (param === undefined ? rest : ''),
      value: typeof value === 'string' && param === 'name' ? camelCase(value) : value,
    };
  }
  const spec = definition.params.find((p) => p.name === param);
  const option = `${base}.${camelCase(param)}`;
  if (spec?.type === 'string map' && rest.startsWith('.')) {
    const entries = ((options as Record<string, unknown>)[camelCase(param)] ?? []) as readonly { name: string }[];
    const k = entries.findIndex((entry) => entry.name === rest.slice(1));
    if (k >= 0) return { field: `${option}[${k}]`, value };
  }
  return { field: option + rest, value };
}

/** A group-by of one parameter is its GraphQL field (`groupBy.bins[2]`); one of several is an object of camelCase fields. */
function groupByField(field: keyof typeof GROUP_BY_FIELDS, param: string | undefined, rest: string): string {
  const definition = GROUP_BYS.find((g) => g.name === GROUP_BY_FIELDS[field])!;
  const base = `groupBy.${field}`;
  if (param === undefined || param === 'name') return base;
  return definition.params.length === 1 ? base + rest : `${base}.${camelCase(param)}${rest}`;
}
