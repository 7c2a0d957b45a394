/**
 * Builds the gateway: graphql-yoga with its plugins in one ordered list and the KairosDB REST API (/api/v1),
 * behind one Node HTTP listener.
 */
import { registerCatalogueMetrics } from './catalogue-metrics.js';
import { registerSchemaMetrics } from './schema-metrics.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { usePrometheus } from '@graphql-yoga/plugin-prometheus';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createYoga, isAsyncIterable, useReadinessCheck, type Plugin } from 'graphql-yoga';
import { NoSchemaIntrospectionCustomRule, type GraphQLError } from 'graphql';
import { Registry } from 'prom-client';
import { LiveQueries } from '../sharing/live-queries.js';
import { createSharedReads, registerSharedReadMetrics } from '../sharing/shared-reads.js';
import { sharedReadOptions } from './layer-options.js';
import type { Config } from './config.js';
import { useAnswerScopes } from '../graphql/field-scopes.js';
import { createGatewaySchemas } from '../graphql/schema.js';
import { BrowserPolicy, PREFLIGHTED_HEADERS } from '../http/browser-policy.js';
import { HttpEdge, type Caller } from '../http/edge.js';
import { ReadQuota } from '../http/quotas.js';
import { createKairosRestHandler, isKairosRestPath, UNKNOWN_REST_ROUTE } from '../kairos-rest/kairos-rest-handler.js';
import type { Logger } from '../lib/log.js';
import { registerRollupMetrics } from '../rollups/rollup-metrics.js';
import { RollupScheduler } from '../rollups/rollup-scheduler.js';
import type { Sources } from '../sources/sources.js';
import { Admission } from '../http/admission.js';
import { Authenticator, loadAuthPolicy } from '../http/auth.js';
import { KairographError } from '../model/errors.js';
import { useCompression } from '../graphql/use-compression.js';
import { DEFAULT_GRAPHIQL_QUERY } from '../graphql/graphiql-default-query.js';
import { createMaskError, isGraphQLError, toGraphQLError } from '../graphql/mask-error.js';
import { loadManifest, usePersistedOperationsPolicy } from '../graphql/persisted-operations.js';
import { answerLateRequests, requestDeadlineOptions } from '../http/request-deadline.js';
import { createExplorerHandler } from './explorer.js';
import { registerLiveMetrics } from '../sharing/live-metrics.js';
import { createRequestContext, type Live, type RequestContext } from '../app/request-scope.js';
import { useBoundedAnswers } from '../graphql/use-bounded-answers.js';
import { useErrorCodes, withErrorCode } from '../graphql/use-error-codes.js';
import { useExecutionSchema } from '../graphql/use-execution-schema.js';
import { useQueryStatistics } from '../graphql/use-query-statistics.js';
import { RequestObserver, type Api } from '../http/request-observer.js';

export interface GatewayDeps {
  /** Where series live: the primary source and those of SOURCES_FILE (src/sources/open-sources.ts). */
  readonly sources: Sources;
  readonly config: Config;
  readonly log: Logger;
}

export function createGateway({ sources: inner, config, log }: GatewayDeps) {
  // One registry per gateway: /metrics shows this gateway's numbers, and tests can run several side by side.
  const metrics = new Registry();
  // Requests read and write through it: the results cache, shared work in flight, invalidation by writes.
  const shared = createSharedReads(inner, sharedReadOptions(config));
  const sources = shared.sources;
  registerSharedReadMetrics(metrics, shared);
  registerSchemaMetrics(metrics, inner);
  registerCatalogueMetrics(metrics, inner);
  const manifest = loadManifest(config);
  // Who may do what: one check for GraphQL's fields, REST's endpoints and /metrics.
  const auth = new Authenticator(
    loadAuthPolicy(
      config,
      inner.all.map((source) => source.name),
    ),
  );
  const callers = new WeakMap<Request, Caller>();
  // One log line and one set of figures per request, for both front ends and the operations endpoints.
  const observer = new RequestObserver(metrics, log);
  // What every request crosses first: one path rule, the browser rules, authentication and the clients' quotas.
  const edge = new HttpEdge({
    auth,
    observer,
    browser: new BrowserPolicy({
      host: config.host,
      allowedHosts: config.allowedHosts,
      corsOrigins: config.corsOrigins,
    }),
    readQuota: new ReadQuota({ maxPointsRead: config.quotaPointsRead, periodMs: config.quotaPeriodMs }),
    route: routeOf,
  });
  // A request's context owns a timer; it is released when yoga has sent the response.
  const contexts = new WeakMap<Request, RequestContext>();
  // One queue for both front ends: a turn is a turn whichever API asked. /health, /ready and /metrics run no query.
  const admission = new Admission(
    {
      maxRunning: config.maxConcurrentRequests,
      maxQueued: config.maxQueuedRequests,
      maxRunningPerClient:
        config.quotaRunning === 'auto' ? Math.max(1, config.maxConcurrentRequests - 1) : config.quotaRunning,
      maxPerClient: config.quotaRequests,
    },
    metrics,
  );
  // liveSeries: each run of a live query is a request of its own (budgets, a turn, statistics) on the same sources.
  const liveQueries = new LiveQueries({
    pollMs: config.livePollMs,
    maxSubscriptions: config.maxSubscriptions,
    maxPerClient: config.quotaSubscriptions,
    generations: shared.generations,
    log,
  });
  registerLiveMetrics(metrics, liveQueries);
  const live: Live = {
    queries: liveQueries,
    newContext: () => createRequestContext(sources, config, log, { admission, shared, live }),
  };
  // Roll-up tasks: managed through both front ends; run when gateway/start.ts starts the scheduler (ROLLUPS=on).
  const rollups = new RollupScheduler({
    sources,
    config,
    log: log.child({ component: 'rollups' }),
    shared,
    settings: {
      pollMs: config.rollupsPollMs,
      maxCatchUpPeriods: config.rollupsMaxCatchUpPeriods,
      leaseMs: config.rollupsLeaseMs,
      delayMs: config.rollupsDelayMs,
    },
  });
  registerRollupMetrics(metrics, rollups);
  const schemas = createGatewaySchemas();
  const yoga = createYoga<object, RequestContext>({
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
      const caller = callers.get(request);
      const context = createRequestContext(sources, config, log, {
        requestId: request.headers.get('x-request-id'),
        clientSignal: request.signal,
        admission,
        shared,
        auth,
        principal: caller?.principal ?? auth.anonymous,
        ...(caller ? { client: caller.client } : {}),
        challenge: 'Bearer',
        live,
        rollups,
      });
      contexts.set(request, context);
      observer.attach(req, context);
      return context;
    },
    maskedErrors: { maskError: createMaskError(log) },
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
          context.dispose();
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
        maxDepth: { n: config.graphqlMaxDepth, onReject: [tooComplex('GRAPHQL_MAX_DEPTH')] },
        maxAliases: { n: config.graphqlMaxAliases, onReject: [tooComplex('GRAPHQL_MAX_ALIASES')] },
        costLimit: { maxCost: config.graphqlMaxCost, onReject: [tooComplex('GRAPHQL_MAX_COST')] },
        maxTokens: { n: config.graphqlMaxTokens, onReject: [tooComplex('GRAPHQL_MAX_TOKENS')] },
        // Introspection is on, so hiding "did you mean" suggestions would protect nothing and cost hand-writers.
        blockFieldSuggestion: { enabled: false },
      }),
      !config.graphqlIntrospection && disableIntrospection(),
      // What a mutation's answer (and introspection) reveals: checked whole before anything runs.
      useAnswerScopes(),
      useQueryStatistics(observer),
      useExecutionSchema(schemas.execution),
      useBoundedAnswers((request) => contexts.get(request), {
        enabled: config.compression,
        minBytes: config.compressionMinBytes,
      }),
      // Last: it replaces the response, and headers set on the old one after it would be lost.
      config.compression && useCompression({ enabled: true, minBytes: config.compressionMinBytes }),
    ],
  });

  // KairosDB's REST API shares the listener, the sources (it serves the primary one) and the request contexts;
  // everything else is yoga's.
  const kairosRest = createKairosRestHandler({
    sources,
    config,
    log,
    admission,
    shared,
    auth,
    edge,
    observer,
    rollups,
  });
  const explorer = createExplorerHandler();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const accepted = edge.accept(req, res);
    if (accepted === undefined) return;
    if (accepted.api === 'rest') kairosRest(req, res);
    else if (accepted.path === '/metrics') void metricsEndpoint(auth, edge, req, res, () => yoga.handle(req, res));
    else if (!explorer(req, res)) void yoga.handle(req, res);
  };

  return { yoga, handle, shared, live: liveQueries, rollups };
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

/** What yoga's node adapter passes plugins and the context factory besides the request. */
interface NodeServerContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
}

/** Which front end answers a canonical path, as metrics and logs name it: a fixed list, whatever the client's path. */
function routeOf(path: string): { api: Api; template: string } {
  // REST names its own route once it has matched one (kairos-rest-handler.ts).
  if (isKairosRestPath(path)) return { api: 'rest', template: UNKNOWN_REST_ROUTE };
  if (path === '/graphql') return { api: 'graphql', template: '/graphql' };
  if (path === '/metrics' || path === '/health' || path === '/ready') return { api: 'operations', template: path };
  // The explorer's page and files (explorer.ts), as two templates: its file names are few, but a path is the client's.
  if (path === '/') return { api: 'other', template: '/' };
  if (path.startsWith('/explorer/')) return { api: 'other', template: '/explorer/{file}' };
  return { api: 'other', template: 'other' };
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

/** /metrics needs the admin scope: the figures name sources and principals, and scraping them costs CPU. */
async function metricsEndpoint(
  auth: Authenticator,
  edge: HttpEdge,
  req: IncomingMessage,
  res: ServerResponse,
  serve: () => unknown,
): Promise<void> {
  try {
    auth.authorize((await edge.caller(req, 'Basic')).principal, 'admin', 'GET /metrics', 'Basic');
  } catch (error) {
    if (!(error instanceof KairographError)) throw error;
    edge.refuse(req, res, 'operations', error);
    return;
  }
  serve();
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

export interface ListeningGateway {
  readonly server: Server;
  /** `http://host:port` */
  readonly url: string;
  close(): Promise<void>;
}

export interface ListenOptions {
  /** Every request's headers and body must arrive within this (QUERY_TIMEOUT_MS), or it gets a 408. */
  readonly requestTimeoutMs: number;
}

/** Listens on host:port (0 picks a free port) and resolves once the socket is bound. */
export async function listen(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  host: string,
  port: number,
  options: ListenOptions,
): Promise<ListeningGateway> {
  const server = createServer(
    {
      ...requestDeadlineOptions(options.requestTimeoutMs),
      // Keep idle connections longer than load balancers and HTTP client pools do (60 s is common): with Node's 5 s
      // default, a client reusing a connection just as the server closes it gets "other side closed".
      keepAliveTimeout: 65_000,
    },
    handle,
  );
  answerLateRequests(server, options.requestTimeoutMs);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
