/**
 * The GraphQL front end as one server: graphql-yoga with its plugins in one ordered list, its context the request's
 * scope (src/app/request-scope.ts) plus live queries and roll-up tasks. It also answers /health, /ready and /metrics,
 * which yoga's plugins serve; the gateway routes those paths here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { usePrometheus } from '@graphql-yoga/plugin-prometheus';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { NoSchemaIntrospectionCustomRule, type GraphQLError } from 'graphql';
import { createYoga, isAsyncIterable, useReadinessCheck, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Registry } from 'prom-client';
import type { RequestScopes } from '../app/request-scope.js';
import type { Authenticator } from '../http/auth.js';
import { PREFLIGHTED_HEADERS } from '../http/browser-policy.js';
import type { Caller, HttpEdge } from '../http/edge.js';
import type { RequestObserver } from '../http/request-observer.js';
import type { Logger } from '../lib/log.js';
import { KairographError } from '../model/errors.js';
import type { RollupService } from '../rollups/rollup-service.js';
import type { Sources } from '../sources/sources.js';
import type { GraphQLContext, Live } from './context.js';
import { useAnswerScopes } from './field-scopes.js';
import { DEFAULT_GRAPHIQL_QUERY } from './graphiql-default-query.js';
import { createMaskError, isGraphQLError, type MaskError, toGraphQLError, withoutHttpExtension } from './mask-error.js';
import { usePersistedOperationsPolicy, type PersistedManifest } from './persisted-operations.js';
import { createGatewaySchemas } from './schema.js';
import { useBoundedAnswers } from './use-bounded-answers.js';
import { useCompression } from './use-compression.js';
import { useErrorCodes, withErrorCode } from './use-error-codes.js';
import { useSharedEvents } from './use-shared-events.js';
import { useExecutionSchema } from './use-execution-schema.js';
import { useAnswerNotes } from './use-answer-notes.js';
import { useQueryStatistics } from './use-query-statistics.js';
import { useTracing } from './use-tracing.js';
import { useMultipartSubscriptions } from './use-multipart-subscriptions.js';

/** What GraphQL needs of the configuration. */
interface GraphQLSettings {
  readonly graphqlMaxDepth: number;
  readonly graphqlMaxAliases: number;
  readonly graphqlMaxCost: number;
  readonly graphqlMaxTokens: number;
  readonly graphqlIntrospection: boolean;
  readonly persistedOperationsFile: string;
  /** COMPRESSION and COMPRESSION_MIN_BYTES. */
  readonly compression: { readonly enabled: boolean; readonly minBytes: number };
}

export interface GraphQLServerDeps {
  /** The gateway's sources: /ready asks the primary one. */
  readonly sources: Sources;
  readonly scopes: RequestScopes;
  readonly auth: Authenticator;
  readonly edge: HttpEdge;
  readonly observer: RequestObserver;
  /** The gateway's registry, which /metrics shows. */
  readonly metrics: Registry;
  readonly live: Live;
  readonly rollups: RollupService;
  readonly settings: GraphQLSettings;
  /** The persisted operations (loadManifest), which WebSockets serve too. */
  readonly manifest: PersistedManifest;
  readonly log: Logger;
}

export function createGraphQLServer(deps: GraphQLServerDeps): YogaServerInstance<object, GraphQLContext> {
  const { sources, scopes, auth, edge, observer, metrics, live, rollups, settings, manifest, log } = deps;
  const callers = new WeakMap<Request, Caller>();
  // A request's context owns a timer; it is released when yoga has sent the response.
  const contexts = new WeakMap<Request, GraphQLContext>();
  // Requests whose answer is a stream of parts (@defer, @stream): their context lives until the last part is sent.
  const streamed = new WeakSet<Request>();
  const maskError = createMaskError(log);
  const schemas = createGatewaySchemas();
  return createYoga<object, GraphQLContext>({
    schema: schemas.contract,
    graphqlEndpoint: '/graphql',
    // Bundled assets: GraphiQL must work where no CDN is reachable.
    renderGraphiQL,
    graphiql: { title: 'Kairograph', defaultQuery: DEFAULT_GRAPHIQL_QUERY },
    landingPage: false,
    // The schema has no Upload scalar: multipart bodies could only buffer files, and their parser's errors carry no code.
    multipart: false,
    // Cross-origin requests are the edge's to allow or refuse (CORS_ORIGINS), for every front end alike.
    cors: false,
    healthCheckEndpoint: '/health',
    context: (initial) => {
      const { request } = initial;
      const { req } = initial as unknown as NodeServerContext;
      // A WebSocket's operation brings the caller its connection authenticated (graphql-ws.ts).
      const caller = callers.get(request) ?? (initial as { caller?: Caller }).caller;
      const scope = scopes.open({
        requestId: request.headers.get('x-request-id'),
        clientSignal: request.signal,
        principal: caller?.principal ?? auth.anonymous,
        ...(caller ? { client: caller.client } : {}),
        challenge: 'Bearer',
      });
      const context: GraphQLContext = { ...scope, live, rollups };
      contexts.set(request, context);
      observer.attach(req, context);
      return context;
    },
    maskedErrors: { maskError },
    logging: {
      debug: (...args) => log.debug(args.map(String).join(' ')),
      info: (...args) => log.info(args.map(String).join(' ')),
      warn: (...args) => log.warn(args.map(String).join(' ')),
      // Yoga logs every error that masking replaced. A typed error is the client's and already in the request's line;
      // anything else keeps its stack.
      error: (...args) => {
        if (args.every(isClientError)) log.debug(args.map(String).join(' '));
        else log.error({ err: args.find((arg) => arg instanceof Error) }, args.map(String).join(' '));
      },
    },
    // In order: request bookkeeping and operations endpoints, then what may reject a request before it runs
    // (CSRF, persisted-only, size and shape limits), then what observes execution.
    plugins: [
      {
        onResponse: ({ request, response }) => {
          const context = contexts.get(request);
          if (!context) return;
          response.headers.set('x-request-id', context.requestId);
          if (!streamed.has(request)) context.dispose();
        },
      },
      // The primary source only: it serves REST and every request that names no source, and another source's outage
      // must not take the gateway out of a load balancer (its own requests answer STORE_UNAVAILABLE).
      useReadinessCheck({
        endpoint: '/ready',
        // 200 while the primary source answers; a store of several servers says which are up in a JSON body
        // (`degraded` with a node down), so a load balancer keeps the gateway and an operator sees the node.
        check: async ({ fetchAPI }) => {
          const report = await sources.primary.ping();
          if (report === undefined) return;
          return new fetchAPI.Response(JSON.stringify(report), {
            status: 200,
            headers: { 'content-type': 'application/json; charset=utf-8' },
          });
        },
      }),
      // GraphQL's phases by operation type only: operation names, paths and URLs are the client's to invent, and each
      // new value would be a new series (HTTP requests of both APIs are counted by route template in request-observer.ts).
      usePrometheus({
        endpoint: '/metrics',
        registry: metrics,
        metrics: {
          graphql_envelop_request: true,
          graphql_envelop_request_duration: true,
          graphql_envelop_phase_parse: true,
          graphql_envelop_phase_validate: true,
          graphql_envelop_phase_context: true,
          graphql_envelop_phase_execute: true,
          graphql_yoga_http_duration: false,
          graphql_envelop_request_time_summary: false,
          graphql_envelop_error_result: false,
          graphql_envelop_deprecated_field: false,
          graphql_envelop_schema_change: false,
        },
        labels: { operationName: false, url: false, path: false, fieldName: false, typeName: false, returnType: false },
      }),
      useErrorLog(observer),
      // Browsers send form and text/plain POSTs without a preflight; JSON POSTs (Grafana, GraphiQL) pass, as do
      // requests with a header only a preflighted request carries (the REST API's rule too: src/http/browser-policy.ts).
      withErrorCode(useCSRFPrevention({ requestHeaders: PREFLIGHTED_HEADERS }), 'CSRF_PREVENTED', CSRF_HINT),
      useErrorCodes(),
      useAuthentication(edge, callers),
      usePersistedOperationsPolicy(manifest, (request) =>
        auth.mayQueryFreely(callers.get(request)?.principal ?? auth.anonymous),
      ),
      EnvelopArmorPlugin({
        maxDepth: { n: settings.graphqlMaxDepth, onReject: [tooComplex('GRAPHQL_MAX_DEPTH')] },
        maxAliases: { n: settings.graphqlMaxAliases, onReject: [tooComplex('GRAPHQL_MAX_ALIASES')] },
        costLimit: { maxCost: settings.graphqlMaxCost, onReject: [tooComplex('GRAPHQL_MAX_COST')] },
        maxTokens: { n: settings.graphqlMaxTokens, onReject: [tooComplex('GRAPHQL_MAX_TOKENS')] },
        // Introspection is on, so hiding "did you mean" suggestions would protect nothing and cost hand-writers.
        blockFieldSuggestion: { enabled: false },
      }),
      !settings.graphqlIntrospection && disableIntrospection(),
      // What a mutation's answer (and introspection) reveals: checked whole before anything runs.
      useAnswerScopes(),
      // @defer and @stream: a dashboard's fast panels are sent while the slow ones read (multipart or SSE).
      useDeferStream(),
      useStreamedAnswers(streamed, maskError),
      useQueryStatistics(observer),
      useTracing(),
      useAnswerNotes(),
      // Before useExecutionSchema, so that the events it executes run against the execution schema.
      useSharedEvents(),
      useExecutionSchema(schemas.execution),
      useBoundedAnswers((request) => contexts.get(request), settings.compression),
      // Apollo Client's HTTP subscriptions; SSE stays yoga's own.
      useMultipartSubscriptions(),
      // Last: it replaces the response, and headers set on the old one after it would be lost.
      settings.compression.enabled && useCompression(settings.compression),
    ],
  });
}

/**
 * Who a GraphQL request acts as, once per request before it is parsed: wrong credentials are refused whatever the
 * operation; a missing scope is refused per field (src/graphql/schema.ts).
 */
function useAuthentication(edge: HttpEdge, callers: WeakMap<Request, Caller>): Plugin {
  return {
    async onRequestParse({ request, serverContext }) {
      try {
        callers.set(request, await edge.caller((serverContext as unknown as NodeServerContext).req, 'Bearer'));
      } catch (error) {
        throw error instanceof KairographError ? toGraphQLError(error) : error;
      }
    },
  };
}

/**
 * A deferred or streamed answer's later parts read with the request's context: its turn, its deadline and its budget
 * are given back when the last part is sent (or the client leaves), not when the response starts.
 */
function useStreamedAnswers(streamed: WeakSet<Request>, maskError: MaskError): Plugin<GraphQLContext> {
  return {
    onExecute({ args }) {
      return {
        onExecuteDone({ result }) {
          if (!isAsyncIterable(result)) return;
          const ctx = args.contextValue as GraphQLContext & { request?: Request };
          if (ctx.request !== undefined) streamed.add(ctx.request);
          return {
            // Yoga masks and codes a part's top-level errors only; a deferred part's are inside `incremental`.
            onNext({ result: part, setResult }) {
              const incremental = (part as { incremental?: { errors?: readonly GraphQLError[] }[] }).incremental;
              if (!incremental?.some((item) => item.errors !== undefined)) return;
              const masked = incremental.map((item) =>
                item.errors === undefined
                  ? item
                  : {
                      ...item,
                      errors: item.errors.map((error) =>
                        withoutHttpExtension(maskError(error, 'Unexpected error.', false) as GraphQLError),
                      ),
                    },
              );
              setResult({ ...part, incremental: masked } as typeof part);
            },
            onEnd: () => ctx.dispose(),
          };
        },
      };
    },
  };
}

/** What yoga's node adapter passes plugins and the context factory besides the request. */
interface NodeServerContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
}

/** The codes and messages of a GraphQL answer's errors, for its log line and `kairograph_errors_total`. */
function useErrorLog(observer: RequestObserver): Plugin {
  return {
    onResultProcess({ result, serverContext }) {
      const exchange = observer.exchange((serverContext as unknown as NodeServerContext).req);
      if (exchange === undefined || isAsyncIterable(result)) return;
      for (const one of Array.isArray(result) ? result : [result]) {
        for (const error of one.errors ?? []) {
          const quota = error.extensions?.['quota'];
          exchange.errors.push({
            code: String(error.extensions?.['code'] ?? 'INTERNAL_SERVER_ERROR'),
            message: error.message,
            ...(typeof quota === 'string' ? { quota } : {}),
          });
        }
      }
    },
  };
}

function isClientError(value: unknown): boolean {
  return value instanceof KairographError || (isGraphQLError(value) && value.originalError instanceof KairographError);
}

/** A plain `curl -d` sends a form's media type: say what passes, since REST's examples teach that style. */
const CSRF_HINT =
  "a POST must send Content-Type: application/json (curl: -H 'Content-Type: application/json'), and a GET the header x-graphql-yoga-csrf: 1; other requests could be a cross-site form";

/**
 * graphql-armor's rejections get a code clients can branch on (useErrorCodes gives it its status) and name the
 * setting that raises the limit, as budget errors do. The error is the one armor throws next, so it is changed here.
 */
function tooComplex(setting: string) {
  return (_: unknown, error: GraphQLError): void => {
    Object.assign(error.extensions, { code: 'QUERY_TOO_COMPLEX' });
    error.message = `${error.message} (${setting})`;
  };
}

/** Introspection off: graphql-js's own validation rule rejects __schema and __type. */
function disableIntrospection(): Plugin {
  return { onValidate: ({ addValidationRule }) => addValidationRule(NoSchemaIntrospectionCustomRule) };
}
