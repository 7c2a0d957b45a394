/**
 * The executable schema: schema.graphql (the contract, read at start) plus the resolvers.
 */
import { readFileSync } from 'node:fs';
import { createSchema } from 'graphql-yoga';
import type { RequestContext } from '../server/request-context.js';
import { resolvers } from './resolvers.js';

/** src/graphql and dist/graphql are both two levels below the project root, where schema.graphql lives. */
export const SCHEMA_PATH = new URL('../../schema.graphql', import.meta.url);

export function createGatewaySchema() {
  return createSchema<RequestContext>({ typeDefs: readFileSync(SCHEMA_PATH, 'utf8'), resolvers });
}
