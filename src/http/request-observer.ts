/**
 * One record per HTTP request, whichever front end answers it: when the response is done it becomes one log line
 * (route, status, error codes and messages, principal, duration, statistics) and the request's Prometheus figures.
 * Labels come from route templates, configured source names and fixed lists only, never from the client's URL, Host
 * or operation names, so /metrics stays the same size whatever clients send.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Histogram, type Registry } from 'prom-client';
import type { Logger } from '../lib/log.js';
import { NO_SPAN, type TraceSpan, type Tracing } from '../lib/trace.js';
import type { RequestScope } from '../app/request-scope.js';
import { requestStatistics, type RequestStatistics } from '../app/statistics.js';

export type Api = 'graphql' | 'rest' | 'prometheus' | 'ingest' | 'operations' | 'other';

interface RequestError {
  readonly code: string;
  readonly message: string;
  /** For RATE_LIMITED: the quota the client went over (`requests`, `points`, `subscriptions`, ...). */
  readonly quota?: string;
}

/** Why requests are refused before they run, as `kairograph_refusals_total` counts them: a fixed list. */
const REFUSALS: Readonly<Record<string, string>> = {
  HOST_NOT_ALLOWED: 'host',
  ORIGIN_NOT_ALLOWED: 'origin',
  CSRF_PREVENTED: 'csrf',
  TOO_MANY_SUBSCRIPTIONS: 'subscriptions',
};
const QUOTAS = ['requests', 'points', 'subscriptions', 'rollup_tasks', 'credentials'];

/** The label of a refusal, or undefined for an error that is not one. */
function refusalOf(error: RequestError): string | undefined {
  if (error.code === 'RATE_LIMITED')
    return error.quota !== undefined && QUOTAS.includes(error.quota) ? `quota_${error.quota}` : 'quota';
  return REFUSALS[error.code];
}

/** What the front ends tell about a request as it runs. */
export interface Exchange {
  readonly api: Api;
  /** The route template (`/api/v1/metric/{name}`, `/graphql`), or `other`. */
  route: string;
  ctx?: RequestScope;
  operation?: string | null;
  errors: RequestError[];
  /** The statistics the response carried, so the log says the same; computed at the end when no one did. */
  statistics?: RequestStatistics;
  /** The request's span (NO_SPAN without tracing); its scope's work are its children. */
  readonly span: TraceSpan;
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']);

export class RequestObserver {
  private readonly exchanges = new WeakMap<IncomingMessage, Exchange>();
  private readonly byContext = new WeakMap<RequestScope, Exchange>();
  private readonly requests: Counter<'api' | 'route' | 'method' | 'status' | 'source'>;
  private readonly duration: Histogram<'api' | 'route' | 'method'>;
  private readonly errors: Counter<'api' | 'code'>;
  private readonly refusals: Counter<'reason'>;
  private readonly phases: Histogram<'source' | 'phase'>;
  private readonly pointsRead: Counter<'source'>;
  private readonly pointsReturned: Counter<'source'>;
  private readonly storeCalls: Counter<'source' | 'call'>;

  constructor(
    registry: Registry,
    private readonly log: Logger,
    private readonly tracing?: Tracing,
  ) {
    // The process and the Node runtime (CPU, memory, heap spaces, event loop lag, GC, handles).
    collectDefaultMetrics({ register: registry });
    const registers = [registry];
    this.requests = new Counter({
      name: 'kairograph_http_requests_total',
      help: 'HTTP requests by API, route template, method, status and the source they used ("" for none, "several")',
      labelNames: ['api', 'route', 'method', 'status', 'source'],
      registers,
    });
    this.duration = new Histogram({
      name: 'kairograph_http_request_duration_seconds',
      help: 'Time from a request to the end of its response, by API, route template and method',
      labelNames: ['api', 'route', 'method'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.errors = new Counter({
      name: 'kairograph_errors_total',
      help: 'Errors in answers, by API and code',
      labelNames: ['api', 'code'],
      registers,
    });
    this.refusals = new Counter({
      name: 'kairograph_refusals_total',
      help: 'Requests refused for who or where they came from: host, origin, csrf, subscriptions (MAX_SUBSCRIPTIONS), quota_<name> (a client over QUOTA_*)',
      labelNames: ['reason'],
      registers,
    });
    // Every reason from the start, at 0: a rate over a series that appears only with the first refusal misses it.
    for (const reason of [...new Set(Object.values(REFUSALS)), ...QUOTAS.map((quota) => `quota_${quota}`)])
      this.refusals.inc({ reason }, 0);
    this.phases = new Histogram({
      name: 'kairograph_query_phase_seconds',
      help: 'Time per query phase (plan: finding series; fetch_aggregate: reading and aggregating; total), by source',
      labelNames: ['source', 'phase'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.pointsRead = new Counter({
      name: 'kairograph_query_points_read_total',
      help: 'Points queries read from the store, by source',
      labelNames: ['source'],
      registers,
    });
    this.pointsReturned = new Counter({
      name: 'kairograph_query_points_returned_total',
      help: 'Points queries returned, by source',
      labelNames: ['source'],
      registers,
    });
    this.storeCalls = new Counter({
      name: 'kairograph_store_calls_total',
      help: 'Index reads and partition scans of requests, by source and call',
      labelNames: ['source', 'call'],
      registers,
    });
  }

  /** Starts the record of a request; it is logged and counted when the response closes. */
  begin(req: IncomingMessage, res: ServerResponse, api: Api, route: string): Exchange {
    const started = performance.now();
    const span = this.tracing ? this.requestSpan(req, res, api, route) : NO_SPAN;
    const exchange: Exchange = { api, route, errors: [], span };
    this.exchanges.set(req, exchange);
    res.once('close', () => this.end(req, res, exchange, performance.now() - started));
    return exchange;
  }

  /**
   * The request's span, the child of the caller's `traceparent`, with a child from its answer's first byte to its
   * last ("write answer"): Node sends every response's head through writeHead, however the front end writes.
   */
  private requestSpan(req: IncomingMessage, res: ServerResponse, api: Api, route: string): TraceSpan {
    const method = METHODS.has(req.method ?? '') ? req.method! : 'other';
    const span = this.tracing!.request(`${method} ${route}`, req.headers, {
      'http.request.method': method,
      'http.route': route,
      'kairograph.api': api,
    });
    const writeHead = res.writeHead;
    let answer: TraceSpan | undefined;
    res.writeHead = function (this: ServerResponse, ...args: Parameters<typeof writeHead>) {
      answer ??= span.child('write answer');
      return writeHead.apply(this, args);
    } as typeof writeHead;
    res.once('close', () => answer?.end());
    return span;
  }

  exchange(req: IncomingMessage): Exchange | undefined {
    return this.exchanges.get(req);
  }

  /** Ties a request context to its record, so plugins that see only the context can add to it. */
  attach(req: IncomingMessage, ctx: RequestScope): void {
    const exchange = this.exchanges.get(req);
    if (exchange === undefined) return;
    exchange.ctx = ctx;
    ctx.trace.span = exchange.span;
    this.byContext.set(ctx, exchange);
  }

  /**
   * The record of the request `ctx` serves. Yoga's plugins see a copy of the context merged with its server context
   * (which holds the Node request), not the object the context factory made, so both are looked up.
   */
  forContext(ctx: RequestScope): Exchange | undefined {
    const req = (ctx as Partial<{ req: IncomingMessage }>).req;
    return this.byContext.get(ctx) ?? (req === undefined ? undefined : this.exchanges.get(req));
  }

  private end(req: IncomingMessage, res: ServerResponse, exchange: Exchange, ms: number): void {
    // A client that left before its answer was sent: nginx's 499.
    const status = res.writableFinished || res.headersSent ? res.statusCode : 499;
    const method = METHODS.has(req.method ?? '') ? req.method! : 'other';
    const { ctx, api, route } = exchange;
    const statistics = exchange.statistics ?? (ctx ? requestStatistics(ctx, ms) : undefined);
    const sources = Object.keys(statistics?.storeCallsBySource ?? {});
    const used = ctx ? [...new Set([...sources, ...ctx.sourcesUsed])] : [];
    const source = used.length === 0 ? '' : used.length === 1 ? used[0]! : 'several';
    this.requests.inc({ api, route, method, status: String(status), source });
    this.endSpan(exchange, method, status, source);
    this.duration.observe({ api, route, method }, ms / 1000);
    for (const error of exchange.errors) {
      this.errors.inc({ api, code: error.code });
      const refusal = refusalOf(error);
      if (refusal !== undefined) this.refusals.inc({ reason: refusal });
    }
    if (ctx) this.countQueries(ctx, statistics!);
    const line = {
      api,
      method,
      route,
      status,
      principal: ctx?.principal.name ?? null,
      ms: Math.round(ms * 100) / 100,
      ...(exchange.operation !== undefined ? { operation: exchange.operation } : {}),
      errors: exchange.errors,
      ...(statistics ? { statistics } : {}),
    };
    const log = ctx?.log ?? this.log;
    const message = api === 'other' || api === 'operations' ? 'request' : `${api} request`;
    // Probes and scrapes come every few seconds: they are there for debugging, not for the daily log.
    if (api === 'operations' || (api === 'rest' && route.startsWith('/api/v1/health') && status < 400))
      log.debug(line, message);
    else log.info(line, message);
  }

  private endSpan({ span, route, errors }: Exchange, method: string, status: number, source: string): void {
    if (!span.recording) return;
    span.rename(`${method} ${route}`);
    // The route is known once a front end matched it; a request refused before keeps the edge's template.
    span.set({
      'http.route': route,
      'http.response.status_code': status,
      ...(source ? { 'kairograph.source': source } : {}),
    });
    if (status >= 500 || status === 499) span.fail(new Error(errors[0]?.message ?? `status ${status}`));
    span.end();
  }

  private countQueries(ctx: RequestScope, statistics: RequestStatistics): void {
    for (const query of ctx.queries) {
      const { source, stats } = query;
      this.phases.observe({ source, phase: 'plan' }, stats.planMs / 1000);
      this.phases.observe({ source, phase: 'fetch_aggregate' }, stats.fetchAggregateMs / 1000);
      this.phases.observe({ source, phase: 'total' }, query.ms / 1000);
      this.pointsRead.inc({ source }, stats.pointsRead);
      this.pointsReturned.inc({ source }, stats.pointsReturned);
    }
    for (const [source, calls] of Object.entries(statistics.storeCallsBySource)) {
      for (const [call, n] of Object.entries(calls))
        if (call !== 'total' && n > 0) this.storeCalls.inc({ source, call }, n);
    }
  }
}
