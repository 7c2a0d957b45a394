/**
 * The one place that maps internal errors to what clients see: Kairograph's typed errors keep their message and
 * get `extensions.code` and an HTTP status; anything unexpected is logged in full and masked.
 */
import type { GraphQLError } from 'graphql';
import { createGraphQLError, maskError as yogaMaskError, type YogaServerOptions } from 'graphql-yoga';
import { InputError, KairographError, RateLimitedError } from '../model/errors.js';
import type { ErrorFormat } from '../http/edge.js';
import type { Logger } from '../lib/log.js';

export type MaskError = NonNullable<
  NonNullable<Exclude<YogaServerOptions<object, object>['maskedErrors'], boolean | undefined>>['maskError']
>;

export function createMaskError(log: Logger): MaskError {
  return (error, message, isDev) => {
    const graphQLError = isGraphQLError(error) ? error : undefined;
    const original = graphQLError ? graphQLError.originalError : error;
    if (original instanceof KairographError) return toGraphQLError(original, graphQLError);
    // GraphQL's own errors (syntax, validation, scalar parsing) are the client's and pass through.
    if (graphQLError && (original === undefined || original === null || isGraphQLError(original))) return graphQLError;
    log.error({ err: original }, 'unexpected error while executing a request');
    return yogaMaskError(error, message, isDev);
  };
}

/**
 * A typed error as clients see it: its message, `extensions.code`, the field of bad input, and its HTTP status and
 * headers (yoga puts `http` on the response and leaves it out of the body).
 */
export function toGraphQLError(error: KairographError, located?: GraphQLError): GraphQLError {
  const { headers } = error;
  return createGraphQLError(error.message, {
    ...(located
      ? { nodes: located.nodes, source: located.source, positions: located.positions, path: located.path }
      : {}),
    extensions: {
      code: error.code,
      ...(error instanceof InputError ? { field: error.field } : {}),
      ...(error instanceof RateLimitedError ? { quota: error.quota.policy } : {}),
      http: { status: error.status, ...(Object.keys(headers).length > 0 ? { headers } : {}) },
    },
  });
}

/** GraphQL's error body as yoga writes it, for the answers the gateway gives before yoga sees a request. */
export const GRAPHQL_ERROR_FORMAT: ErrorFormat = {
  body: (error) => JSON.stringify({ errors: [{ message: error.message, extensions: { code: error.code } }] }),
  headers: {},
};

/** By shape, not instanceof: graphql can be loaded twice (its ESM and CommonJS builds), each with its own class. */
export function isGraphQLError(error: unknown): error is GraphQLError {
  return error instanceof Error && error.name === 'GraphQLError' && 'extensions' in error;
}

/** An error as a stream's or a socket's client reads it: the HTTP status and headers yoga uses mean nothing there. */
export function withoutHttpExtension(error: GraphQLError): ReturnType<GraphQLError['toJSON']> {
  const json = error.toJSON();
  if (json.extensions === undefined || !('http' in json.extensions)) return json;
  const { http: _http, ...extensions } = json.extensions;
  return { ...json, extensions };
}
