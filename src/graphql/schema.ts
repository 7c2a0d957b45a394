/**
 * The executable schemas: schema.graphql (the contract, read at start) plus the resolvers, each root field guarded by
 * the scope FIELD_SCOPES (field-scopes.ts) gives it; and the execution schema operations run against, the same with point lists typed as
 * one value each (point-answers.ts).
 */
import { readFileSync } from 'node:fs';
import { GraphQLScalarType, parse, type GraphQLSchema } from 'graphql';
import { createSchema } from 'graphql-yoga';
import type { Resolvers } from '../generated/graphql.js';
import type { GraphQLContext } from './context.js';
import { checkScopes, FIELD_SCOPES } from './field-scopes.js';
import { BuiltListScalar, executionTypeDefs } from './built-lists.js';
import { resolvers } from './resolvers.js';

/** src/graphql and dist/graphql are both two levels below the project root, where schema.graphql lives. */
export const SCHEMA_PATH = new URL('../../schema.graphql', import.meta.url);

export interface GatewaySchemas {
  /** schema.graphql as written: requests are validated against it, limits measured on it, introspection describes it. */
  readonly contract: GraphQLSchema;
  /** The contract with the lists of point-answers.ts BUILT_LISTS typed as one value each: operations run against it. */
  readonly execution: GraphQLSchema;
}

export function createGatewaySchemas(): GatewaySchemas {
  const typeDefs = parse(readFileSync(SCHEMA_PATH, 'utf8'));
  const scoped = guarded(withScalarBehaviourOnly(resolvers));
  const contract = createSchema<GraphQLContext>({ typeDefs, resolvers: scoped });
  const execution = createSchema<GraphQLContext>({
    typeDefs: executionTypeDefs(typeDefs),
    resolvers: { ...scoped, ...withScalarBehaviourOnly({ BuiltList: BuiltListScalar }) },
  });
  checkScopes(contract);
  return { contract, execution };
}

/**
 * graphql-tools copies every own property of a GraphQLScalarType given as a resolver onto the SDL's scalar, the
 * instance's `description: undefined` included, which erased the schema's documentation of Time, Long and
 * PointValue from introspection. The SDL owns a scalar's name and description; resolvers give it behaviour only.
 */
function withScalarBehaviourOnly<T extends object>(map: T): T {
  return Object.fromEntries(
    Object.entries(map).map(([name, value]) =>
      value instanceof GraphQLScalarType
        ? [name, { serialize: value.serialize, parseValue: value.parseValue, parseLiteral: value.parseLiteral }]
        : [name, value],
    ),
  ) as T;
}

type AnyResolver = (parent: unknown, args: Record<string, unknown>, ctx: GraphQLContext, info: unknown) => unknown;
/** A subscription field's resolver: `subscribe` starts it, `resolve` shapes each event. */
interface SubscriptionResolver {
  readonly subscribe: AnyResolver;
  readonly resolve?: AnyResolver;
}

/** The resolvers with each root field's scope (and source) checked before it runs (a subscription's, before it starts). */
function guarded(all: Resolvers): Resolvers {
  const copy: Record<string, unknown> = { ...all };
  for (const [typeName, scopes] of Object.entries(FIELD_SCOPES)) {
    const fields = { ...(all[typeName as keyof Resolvers] as Record<string, AnyResolver | SubscriptionResolver>) };
    for (const [field, scope] of Object.entries(scopes)) {
      const given = fields[field];
      if (given === undefined) continue;
      const check = (args: Record<string, unknown>, ctx: GraphQLContext) => {
        // A field without a source argument (`sources`) touches no source's series.
        const source =
          'source' in args || field !== 'sources'
            ? ((args['source'] as string | null | undefined) ?? ctx.sources.primary.name)
            : undefined;
        ctx.authorize(scope, field, source);
      };
      if (typeof given === 'function') {
        fields[field] = (parent, args, ctx, info) => {
          check(args, ctx);
          return given(parent, args, ctx, info);
        };
      } else {
        fields[field] = {
          ...given,
          subscribe: (parent, args, ctx, info) => {
            check(args, ctx);
            return given.subscribe(parent, args, ctx, info);
          },
        };
      }
    }
    copy[typeName] = fields;
  }
  return copy as Resolvers;
}
