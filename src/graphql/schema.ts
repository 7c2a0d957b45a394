/**
 * The executable schema: schema.graphql (the contract, read at start) plus the resolvers.
 */
import { readFileSync } from 'node:fs';
import { GraphQLScalarType } from 'graphql';
import { createSchema } from 'graphql-yoga';
import type { RequestContext } from '../server/request-context.js';
import { resolvers } from './resolvers.js';

/** src/graphql and dist/graphql are both two levels below the project root, where schema.graphql lives. */
export const SCHEMA_PATH = new URL('../../schema.graphql', import.meta.url);

export function createGatewaySchema() {
  return createSchema<RequestContext>({ typeDefs: readFileSync(SCHEMA_PATH, 'utf8'), resolvers: withScalarBehaviourOnly(resolvers) });
}

/**
 * graphql-tools copies every own property of a GraphQLScalarType given as a resolver onto the SDL's scalar, the
 * instance's `description: undefined` included, which erased the schema's documentation of Time, Long and
 * PointValue from introspection. The SDL owns a scalar's name and description; resolvers give it behaviour only.
 */
function withScalarBehaviourOnly<T extends object>(map: T): T {
  return Object.fromEntries(
    Object.entries(map).map(([name, value]) =>
      value instanceof GraphQLScalarType ? [name, { serialize: value.serialize, parseValue: value.parseValue, parseLiteral: value.parseLiteral }] : [name, value],
    ),
  ) as T;
}
