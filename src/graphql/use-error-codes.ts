/**
 * The table of GraphQL error codes and HTTP statuses (docs/graphql.md, "Errors and their statuses"): every error a
 * GraphQL response carries leaves with an `extensions.code` and the status its code documents, whatever the client's
 * Accept header.
 */
import { GraphQLError, type ExecutionResult, type ValidationRule } from 'graphql';
import { createGraphQLError, isAsyncIterable, type Plugin } from 'graphql-yoga';
import { ERROR_STATUS, type ErrorCode } from '../model/errors.js';
import { isGraphQLError } from './mask-error.js';

/** The codes of the REST router's refusals: yoga answers GraphQL's paths and methods itself (BAD_REQUEST). */
const REST_ROUTING: ReadonlySet<string> = new Set<ErrorCode>(['NOT_FOUND', 'METHOD_NOT_ALLOWED']);

/**
 * Codes and statuses: the project's table and yoga's own codes. BAD_REQUEST (yoga's request-parser and method
 * refusals) is left out on purpose: it keeps yoga's status, 400 or 405 with an Allow header. A code this table lacks
 * keeps the status its error carries.
 */
export const GRAPHQL_ERROR_STATUS: Readonly<Record<string, number>> = {
  ...Object.fromEntries(Object.entries(ERROR_STATUS).filter(([code]) => !REST_ROUTING.has(code))),
  PERSISTED_QUERY_ID_REQUIRED: 400,
  PERSISTED_QUERY_ONLY: 403,
  PERSISTED_QUERY_NOT_FOUND: 404,
  PERSISTED_QUERY_HASH_MISMATCH: 400,
  GRAPHQL_PARSE_FAILED: 400,
  QUERY_TOO_COMPLEX: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  OPERATION_RESOLUTION_FAILURE: 400,
  INTERNAL_SERVER_ERROR: 500,
};

/**
 * Gives the errors that arrive without a code theirs, then applies the table to every error of every response.
 * GraphQL-over-HTTP lets legacy `Accept: application/json` clients get 200 for documents that fail to parse or
 * validate (yoga marks those errors `http.spec`); Kairograph answers every client the same documented status, as it
 * already did for bad arguments, so a status never depends on a header the client may not control (Grafana).
 */
export function useErrorCodes(): Plugin {
  return {
    onRequestParse({ request, requestParser }) {
      // Yoga answers an unknown media type with an empty 415; clients get an error that says what to send.
      if (requestParser === undefined && request.method === 'POST') {
        const type = request.headers.get('content-type');
        throw createGraphQLError(
          `a GraphQL POST must be application/json (or application/graphql+json, application/graphql, application/x-www-form-urlencoded); got ${type === null ? 'no Content-Type' : JSON.stringify(type)}`,
          { extensions: { code: 'UNSUPPORTED_MEDIA_TYPE', http: { status: 415 } } },
        );
      }
    },
    onValidate({ addValidationRule }) {
      addValidationRule(KnownOperationTypesRule);
    },
    onExecute() {
      return {
        onExecuteDone({ result, setResult }) {
          // A result without data failed before execution began: graphql-js could not coerce the variables
          // (wrong type, missing, null for non-null). That is the client's input, and it arrives without a code.
          if (isAsyncIterable(result) || result.data !== undefined || !result.errors) return;
          setResult({ ...result, errors: result.errors.map((error) => withCode(error, 'BAD_USER_INPUT')) });
        },
      };
    },
    onResultProcess({ result, setResult }) {
      if (isAsyncIterable(result)) return;
      setResult(Array.isArray(result) ? result.map(withDocumentedStatuses) : withDocumentedStatuses(result));
    },
  };
}

/**
 * `plugin` with a code on the errors its onRequestParse throws without one (yoga's CSRF prevention has none), and
 * `hint` after their message: what the client should send instead.
 */
export function withErrorCode<T extends Plugin>(plugin: T, code: string, hint?: string): T {
  const onRequestParse = plugin.onRequestParse;
  if (onRequestParse === undefined) return plugin;
  return {
    ...plugin,
    onRequestParse(payload) {
      try {
        return onRequestParse(payload);
      } catch (error) {
        if (!isGraphQLError(error)) throw error;
        const coded = withCode(error, code);
        throw hint === undefined
          ? coded
          : createGraphQLError(`${coded.message}: ${hint}`, { extensions: coded.extensions });
      }
    },
  };
}

/**
 * graphql-js 17's KnownOperationTypesRule: an operation type the schema lacks is a validation error, where
 * graphql-js 16 only fails it at execution, with no code.
 */
const KnownOperationTypesRule: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (!context.getSchema().getRootType(node.operation)) {
      context.reportError(
        new GraphQLError(`The ${node.operation} operation is not supported by the schema.`, { nodes: node }),
      );
    }
  },
});

function withDocumentedStatuses<T extends ExecutionResult>(result: T): T {
  return result.errors?.length ? { ...result, errors: result.errors.map(withDocumentedStatus) } : result;
}

interface HttpExtension {
  status?: number;
  headers?: Record<string, string>;
  spec?: boolean;
}

/** The error with a code (INTERNAL_SERVER_ERROR when none was given: nothing else should reach here without one). */
function withDocumentedStatus(error: GraphQLError): GraphQLError {
  const code = typeof error.extensions['code'] === 'string' ? error.extensions['code'] : 'INTERNAL_SERVER_ERROR';
  const http = (error.extensions['http'] ?? {}) as HttpExtension;
  const status = GRAPHQL_ERROR_STATUS[code] ?? http.status ?? 500;
  if (code === error.extensions['code'] && status === http.status && http.spec === undefined) return error;
  // `spec` is what lets yoga answer application/json clients 200; without it the status is the status.
  return rebuilt(error, {
    ...error.extensions,
    code,
    http: { ...(http.headers ? { headers: http.headers } : {}), status },
  });
}

function withCode(error: GraphQLError, code: string): GraphQLError {
  return error.extensions['code'] === undefined ? rebuilt(error, { ...error.extensions, code }) : error;
}

/** A copy with other extensions: errors may be shared (yoga caches validation results), so none is changed in place. */
function rebuilt(error: GraphQLError, extensions: Record<string, unknown>): GraphQLError {
  return createGraphQLError(error.message, {
    ...(error.nodes ? { nodes: error.nodes } : {}),
    ...(error.source ? { source: error.source } : {}),
    ...(error.positions ? { positions: error.positions } : {}),
    ...(error.path ? { path: error.path } : {}),
    ...(error.originalError ? { originalError: error.originalError } : {}),
    extensions,
  });
}
