/**
 * What reading each GraphQL field needs. Root fields have a scope each (FIELD_SCOPES), checked as each runs. What an
 * answer reveals is scoped too, not only the root field that produced it (ANSWER_SCOPES): a mutation's answer shows
 * what its principal may read, nothing more, so a write-only credential that created a roll-up task cannot read the
 * task's runs (`status { lastRun { pointsWritten } }` told whether a value passed a threshold). Introspection needs
 * `read`. Answers are checked for the whole operation before it runs, so a refused answer never leaves its mutation
 * half done.
 */
import {
  getNamedType,
  getOperationAST,
  isCompositeType,
  type DocumentNode,
  type GraphQLCompositeType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { KairographError } from '../model/errors.js';
import type { GraphQLContext } from './context.js';
import { toGraphQLError } from './mask-error.js';
import type { Scope } from '../model/principal.js';

/**
 * What each root field needs. A root field missing here stops the schema from being built, so no field can be added
 * without a decision; a field that takes `source` is also checked against the sources a principal may use.
 */
export const FIELD_SCOPES: Readonly<Record<'Query' | 'Mutation' | 'Subscription', Readonly<Record<string, Scope>>>> = {
  Query: {
    sources: 'read',
    metricNames: 'read',
    metricNamesPage: 'read',
    tagNames: 'read',
    tagValues: 'read',
    tagValuesPage: 'read',
    seriesKeys: 'read',
    seriesKeysPage: 'read',
    points: 'read',
    rawSeries: 'read',
    series: 'read',
    rows: 'read',
    promql: 'read',
    metadata: 'read',
    rollups: 'read',
  },
  // Roll-up tasks delete no points: changing one needs `write`, as the points its runs write do.
  Mutation: {
    addPoints: 'write',
    deletePoints: 'delete',
    setMetadata: 'write',
    deleteMetadata: 'delete',
    createRollup: 'write',
    updateRollup: 'write',
    deleteRollup: 'write',
  },
  // Checked when the subscription starts; its runs then read for it (a live query takes no save_as).
  Subscription: { liveSeries: 'read', livePromql: 'read' },
};

/** Any one of these scopes lets a field be read. */
type AnyOf = readonly Scope[];

/** The definition of a roll-up task: what its writer sent, which a reader may see too. */
const DEFINITION: AnyOf = ['read', 'write'];

/**
 * Every field of every type a mutation can answer with, and what reading it needs. A type that a mutation returns and
 * that misses a field here stops the schema from being built (checkAnswerScopes), as FIELD_SCOPES does for root
 * fields, so no field can be added without a decision. The same rules hold where a query reaches these types.
 */
const ANSWER_SCOPES: Readonly<Record<string, Readonly<Record<string, AnyOf>>>> = {
  // Counts of what the principal's own write carried.
  AddPointsResult: { series: ['write'], points: ['write'] },
  // What the principal's own delete removed: counts, no name and no value.
  DeletePointsResult: { series: ['delete'], partitionsDeleted: ['delete'], rangesDeleted: ['delete'] },
  // The value the principal set, and when.
  MetadataValue: { value: DEFINITION, writtenMs: DEFINITION },
  RollupTask: {
    id: DEFINITION,
    name: DEFINITION,
    executionInterval: DEFINITION,
    rollups: DEFINITION,
    json: DEFINITION,
    lastModifiedMs: DEFINITION,
    // Why the stored task cannot run: a fault of its JSON, which its writer sent.
    error: DEFINITION,
    // Runs read the task's series: their outcome (points written, errors) tells about values.
    status: ['read'],
  },
  Rollup: { saveAs: DEFINITION, metrics: DEFINITION },
  RollupInterval: { value: DEFINITION, unit: DEFINITION },
  RollupStatus: {
    completedThrough: ['read'],
    pendingPeriods: ['read'],
    failures: ['read'],
    retryAt: ['read'],
    lastRun: ['read'],
    lastSuccess: ['read'],
    skipped: ['read'],
    // Which gateway holds the task names a host and a process: the operators'.
    heldBy: ['admin'],
  },
  RollupRun: {
    periodStart: ['read'],
    periodEnd: ['read'],
    started: ['read'],
    finished: ['read'],
    durationMs: ['read'],
    pointsWritten: ['read'],
    error: ['read'],
    gateway: ['admin'],
  },
  RollupSkip: { from: ['read'], to: ['read'], periods: ['read'] },
};

/** Introspection describes every field and argument: it needs `read`, as docs/security.md says. */
const INTROSPECTION: Readonly<Record<string, AnyOf>> = { __schema: ['read'], __type: ['read'] };

/**
 * Throws unless every root field has a scope in FIELD_SCOPES, and every field of every object type a mutation can
 * answer with has one in ANSWER_SCOPES: the schema is not built without both decisions.
 */
export function checkScopes(schema: GraphQLSchema): void {
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (!type) continue;
    const scopes = FIELD_SCOPES[type.name as keyof typeof FIELD_SCOPES];
    const unguarded = Object.keys(type.getFields()).find((field) => scopes?.[field] === undefined);
    if (unguarded !== undefined)
      throw new Error(`${type.name}.${unguarded} has no scope in FIELD_SCOPES (src/graphql/field-scopes.ts)`);
  }
  const seen = new Set<string>();
  const visit = (type: GraphQLCompositeType): void => {
    if (seen.has(type.name) || !('getFields' in type)) return;
    seen.add(type.name);
    for (const [name, field] of Object.entries(type.getFields())) {
      if (ANSWER_SCOPES[type.name]?.[name] === undefined)
        throw new Error(
          `${type.name}.${name}, which a mutation can answer with, has no scope in ANSWER_SCOPES (src/graphql/field-scopes.ts)`,
        );
      const named = getNamedType(field.type);
      if (isCompositeType(named)) visit(named);
    }
  };
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    const named = getNamedType(field.type);
    if (isCompositeType(named)) visit(named);
  }
}

/** Refuses, before execution, an operation that selects a field its principal may not read (ANSWER_SCOPES). */
export function useAnswerScopes(): Plugin<GraphQLContext> {
  const check = (
    schema: GraphQLSchema,
    document: DocumentNode,
    operationName: string | null | undefined,
    ctx: GraphQLContext,
  ) => {
    const refused = refusedField(schema, document, operationName, ctx.principal.scopes);
    if (refused === undefined) return undefined;
    try {
      ctx.authorize(refused.scopes[0]!, refused.what);
      return undefined;
    } catch (error) {
      if (error instanceof KairographError) return { errors: [toGraphQLError(error)] };
      throw error;
    }
  };
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const result = check(args.schema, args.document, args.operationName, args.contextValue);
      if (result !== undefined) setResultAndStopExecution(result);
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const result = check(args.schema, args.document, args.operationName, args.contextValue);
      if (result !== undefined) setResultAndStopExecution(result);
    },
  };
}

/** The first field of the operation that `scopes` may not read, with what it needs. */
function refusedField(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  scopes: ReadonlySet<Scope>,
): { what: string; scopes: AnyOf } | undefined {
  const operation = getOperationAST(document, operationName);
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return undefined;
  const fragments = new Map(
    document.definitions.flatMap((definition) =>
      definition.kind === 'FragmentDefinition' ? [[definition.name.value, definition] as const] : [],
    ),
  );
  const spread = new Set<string>();
  const walk = (
    selections: SelectionSetNode,
    type: GraphQLCompositeType,
  ): { what: string; scopes: AnyOf } | undefined => {
    for (const selection of selections.selections) {
      let found: { what: string; scopes: AnyOf } | undefined;
      if (selection.kind === 'Field') {
        const name = selection.name.value;
        const needs = type === root ? INTROSPECTION[name] : ANSWER_SCOPES[type.name]?.[name];
        if (needs !== undefined && !needs.some((scope) => scopes.has(scope)))
          return { what: type === root ? name : `${type.name}.${name}`, scopes: needs };
        // A root field the principal may not use is refused as it runs, with its own name; its answer is never made.
        const own = type === root ? FIELD_SCOPES[root.name as keyof typeof FIELD_SCOPES]?.[name] : undefined;
        if (own !== undefined && !scopes.has(own)) continue;
        const field = 'getFields' in type ? type.getFields()[name] : undefined;
        const named = field && getNamedType(field.type);
        if (named && isCompositeType(named) && selection.selectionSet) found = walk(selection.selectionSet, named);
      } else if (selection.kind === 'InlineFragment') {
        const on = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
        if (on && isCompositeType(on)) found = walk(selection.selectionSet, on);
      } else if (!spread.has(selection.name.value)) {
        spread.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        const on = fragment && schema.getType(fragment.typeCondition.name.value);
        if (fragment && on && isCompositeType(on)) found = walk(fragment.selectionSet, on);
      }
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return walk(operation.selectionSet, root);
}
