/**
 * Builds the gateway, the one place that knows every part: the shared reads over the sources, the edge every request
 * crosses, admission, the request scopes, roll-ups and live queries, and the front ends (GraphQL, KairosDB's REST API
 * under /api/v1, Prometheus's query API under /prometheus/<source>/api/v1, the collectors' write protocols, the
 * explorer's pages) behind one Node HTTP listener, and the collectors' TCP listeners (KairosDB's telnet, Graphite).
 */
import { registerCatalogueMetrics } from './catalogue-metrics.js';
import { registerSchemaMetrics } from './schema-metrics.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { LiveQueries } from '../sharing/live-queries.js';
import { createSharedReads, registerSharedReadMetrics } from '../sharing/shared-reads.js';
import { sharedReadOptions } from './layer-options.js';
import type { Config } from './config.js';
import { BrowserPolicy } from '../http/browser-policy.js';
import { HttpEdge, type ErrorFormat } from '../http/edge.js';
import { ReadQuota } from '../http/quotas.js';
import { createKairosRestHandler } from '../kairos-rest/kairos-rest-handler.js';
import { KAIROS_ERROR_FORMAT } from '../kairos-rest/rest-answers.js';
import { isKairosRestPath, UNKNOWN_REST_ROUTE } from '../kairos-rest/rest-router.js';
import type { Logger } from '../lib/log.js';
import { registerRollupMetrics } from '../rollups/rollup-metrics.js';
import { RollupService } from '../rollups/rollup-service.js';
import { rollupSettings } from '../rollups/rollup-settings.js';
import type { Sources } from '../sources/sources.js';
import { Admission } from '../http/admission.js';
import { Authenticator } from '../http/auth.js';
import { loadAuthPolicy } from '../http/auth-policy.js';
import { KairographError } from '../model/errors.js';
import { GRAPHQL_ERROR_FORMAT } from '../graphql/mask-error.js';
import { answerLateRequests, requestDeadlineOptions } from '../http/request-deadline.js';
import { createExplorerHandler } from './explorer.js';
import { registerLiveMetrics } from '../sharing/live-metrics.js';
import { RequestScopes, scopeSettings } from '../app/request-scope.js';
import type { Live } from '../graphql/context.js';
import { createGraphQLServer } from '../graphql/graphql-server.js';
import { createGraphQLWebSocket, registerWebSocketMetrics, type GraphQLWebSocket } from '../graphql/graphql-ws.js';
import { loadManifest } from '../graphql/persisted-operations.js';
import { RequestObserver, type Api } from '../http/request-observer.js';
import { openTracing } from './tracing.js';
import { PROMETHEUS_ERROR_FORMAT } from '../prometheus/prom-errors.js';
import { TcpIngest } from '../ingest/tcp-ingest.js';
import { INGEST_ERROR_FORMAT } from '../ingest/ingest-answers.js';
import { createIngestHandler, ingestRoute } from '../ingest/ingest-handler.js';
import { IngestMetrics } from '../ingest/ingest-metrics.js';
import {
  createPrometheusHandler,
  isPrometheusPath,
  UNKNOWN_PROMETHEUS_ROUTE,
} from '../prometheus/prometheus-handler.js';

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
  // Who may do what: one check for GraphQL's fields, REST's endpoints and /metrics.
  const auth = new Authenticator(
    loadAuthPolicy(
      config,
      inner.all.map((source) => source.name),
    ),
  );
  // One log line and one set of figures per request, for both front ends and the operations endpoints.
  // OpenTelemetry spans of requests, operations, queries and index reads, when OTEL_TRACES_EXPORTER asks for them.
  const tracing = openTracing(config, process.env);
  const observer = new RequestObserver(metrics, log, tracing);
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
    errors: ERROR_FORMATS,
  });
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
  // Every request's scope, whichever front end or job opens it: its budgets, its turn, the check of its scopes.
  const scopes = new RequestScopes({
    sources,
    settings: scopeSettings(config),
    log,
    shared,
    takeTurn: (signal, deadlineMs, client) => admission.admit(signal, deadlineMs, client),
    authorize: (principal, scope, what, challenge, source) => auth.authorize(principal, scope, what, challenge, source),
  });
  // Roll-ups: one service, its tasks managed through both front ends, run when gateway/start.ts starts it (ROLLUPS=on).
  const rollups = new RollupService({
    sources,
    scopes,
    log: log.child({ component: 'rollups' }),
    settings: rollupSettings(config),
  });
  registerRollupMetrics(metrics, rollups);
  const live: Live = { queries: liveQueries, open: () => ({ ...scopes.open(), live, rollups }) };
  const manifest = loadManifest(config);
  const yoga = createGraphQLServer({
    sources,
    scopes,
    auth,
    edge,
    observer,
    metrics,
    live,
    rollups,
    settings: { ...config, compression: { enabled: config.compression, minBytes: config.compressionMinBytes } },
    manifest,
    log,
  });
  // Subscriptions (and any operation) over WebSocket on /graphql, through the same edge and plugins.
  const webSockets = createGraphQLWebSocket({ yoga, edge, auth, manifest, settings: config });
  registerWebSocketMetrics(metrics, webSockets);

  // KairosDB's REST API shares the listener, the sources (it serves the primary one) and the request contexts;
  // everything else is yoga's.
  const kairosRest = createKairosRestHandler({
    sources,
    settings: {
      maxBodyBytes: config.restMaxBodyBytes,
      tagsRowPeriods: config.restTagsRowPeriods,
      compression: { enabled: config.compression, minBytes: config.compressionMinBytes },
    },
    log,
    scopes,
    auth,
    edge,
    observer,
    rollups,
  });
  // Prometheus's query API, one Grafana data source per source: the same listener, edge, scopes and admission.
  const prometheus = createPrometheusHandler({
    sources,
    settings: {
      maxBodyBytes: config.restMaxBodyBytes,
      compression: { enabled: config.compression, minBytes: config.compressionMinBytes },
    },
    log,
    scopes,
    auth,
    edge,
    observer,
  });
  // Collectors' line protocols on TCP ports of their own (each off unless its port is set), started by start.ts.
  // Every ingest protocol counts its points and refusals in the same two families, by protocol.
  const ingestMetrics = new IngestMetrics(metrics);
  const tcpIngest = new TcpIngest({ sources, scopes, metrics, ingestMetrics, log, settings: config });
  // The collectors' write protocols (remote write, line protocol): the same edge, scopes and one write path.
  const ingest = createIngestHandler({
    sources,
    settings: { maxBodyBytes: config.restMaxBodyBytes, influxMetricSeparator: config.influxMetricSeparator },
    log,
    scopes,
    auth,
    edge,
    observer,
    metrics: ingestMetrics,
  });
  const explorer = createExplorerHandler();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const accepted = edge.accept(req, res);
    if (accepted === undefined) return;
    if (accepted.api === 'rest') kairosRest(req, res);
    else if (accepted.api === 'prometheus') prometheus(req, res);
    else if (accepted.api === 'ingest') ingest(req, res);
    else if (accepted.path === '/metrics') void metricsEndpoint(auth, edge, req, res, () => yoga.handle(req, res));
    else if (!explorer(req, res)) void yoga.handle(req, res);
  };

  /** Sends the spans still buffered (after the listener closed, so the last requests' spans are among them). */
  const flushTraces = async () => tracing?.shutdown();
  return { yoga, handle, webSockets, shared, live: liveQueries, rollups, tcpIngest, flushTraces };
}

/** Which front end answers a canonical path, as metrics and logs name it: a fixed list, whatever the client's path. */
function routeOf(path: string): { api: Api; template: string } {
  // REST names its own route once it has matched one (rest-router.ts).
  if (isKairosRestPath(path)) return { api: 'rest', template: UNKNOWN_REST_ROUTE };
  // Remote write sits under /prometheus/ but is an ingest route; its template never holds the source's name.
  const ingest = ingestRoute(path);
  if (ingest !== undefined) return { api: 'ingest', template: ingest };
  // Prometheus's routes name themselves once matched (`/prometheus/{source}/api/v1/query`), never with the source's name.
  if (isPrometheusPath(path)) return { api: 'prometheus', template: UNKNOWN_PROMETHEUS_ROUTE };
  if (path === '/graphql') return { api: 'graphql', template: '/graphql' };
  if (path === '/metrics' || path === '/health' || path === '/ready') return { api: 'operations', template: path };
  // The explorer's page and files (explorer.ts), as two templates: its file names are few, but a path is the client's.
  if (path === '/') return { api: 'other', template: '/' };
  if (path.startsWith('/explorer/')) return { api: 'other', template: '/explorer/{file}' };
  return { api: 'other', template: 'other' };
}

/**
 * The error body of each kind of route, for the answers the gateway gives before a front end sees a request (the edge's
 * refusals, the 408 of a request not received in time): KairosDB's on REST's paths, Prometheus's on /prometheus/,
 * GraphQL's on every other.
 */
const ERROR_FORMATS: Readonly<Record<Api, ErrorFormat>> = {
  graphql: GRAPHQL_ERROR_FORMAT,
  rest: KAIROS_ERROR_FORMAT,
  prometheus: PROMETHEUS_ERROR_FORMAT,
  ingest: INGEST_ERROR_FORMAT,
  operations: GRAPHQL_ERROR_FORMAT,
  other: GRAPHQL_ERROR_FORMAT,
};

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

export interface ListeningGateway {
  readonly server: Server;
  /** `http://host:port` */
  readonly url: string;
  close(): Promise<void>;
}

export interface ListenOptions {
  /** Every request's headers and body must arrive within this (QUERY_TIMEOUT_MS), or it gets a 408. */
  readonly requestTimeoutMs: number;
  /** The gateway's WebSockets: upgrades go to them, and closing the listener closes them. */
  readonly webSockets?: GraphQLWebSocket;
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
  const { webSockets } = options;
  if (webSockets !== undefined) server.on('upgrade', (req, socket, head) => webSockets.upgrade(req, socket, head));
  answerLateRequests(server, options.requestTimeoutMs, (url) => ERROR_FORMATS[routeOf(url ?? '').api]);
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
    close: async () => {
      // Open sockets would keep the server from closing.
      await webSockets?.close();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      });
    },
  };
}
