/**
 * The one place that maps internal errors to what clients see: Kairograph's typed errors keep their message and
 * get `extensions.code` and an HTTP status; anything unexpected is logged in full and masked.
 */
import type { GraphQLError } from 'graphql';
import { createGraphQLError, maskError as yogaMaskError, type YogaServerOptions } from 'graphql-yoga';
import { InputError, KairographError } from '../errors.js';
import type { Logger } from '../log.js';

type MaskError = NonNullable<Exclude<YogaServerOptions<object, object>['maskedErrors'], boolean | undefined>>['maskError'];

export function createMaskError(log: Logger): MaskError {
  return (error, message, isDev) => {
    const graphQLError = isGraphQLError(error) ? error : undefined;
    const original = graphQLError ? graphQLError.originalError : error;
    if (original instanceof KairographError) {
      return createGraphQLError(original.message, {
        ...(graphQLError ? { nodes: graphQLError.nodes, source: graphQLError.source, positions: graphQLError.positions, path: graphQLError.path } : {}),
        extensions: {
          code: original.code,
          ...(original instanceof InputError ? { field: original.field } : {}),
          http: { status: original.status },
        },
      });
    }
    // GraphQL's own errors (syntax, validation, scalar parsing) are the client's and pass through.
    if (graphQLError && (original === undefined || original === null || isGraphQLError(original))) return graphQLError;
    log.error({ err: original }, 'unexpected error while executing a request');
    return yogaMaskError(error, message, isDev);
  };
}

/** By shape, not instanceof: graphql can be loaded twice (its ESM and CommonJS builds), each with its own class. */
function isGraphQLError(error: unknown): error is GraphQLError {
  return error instanceof Error && error.name === 'GraphQLError' && 'extensions' in error;
}
