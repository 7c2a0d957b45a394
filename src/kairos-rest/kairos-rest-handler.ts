/**
 * KairosDB's REST API under /api/v1 (COMPATIBILITY.md beside this file): routes, CORS, one request context per
 * request, and the one place REST errors become KairosDB's {"errors": [...]}. Reads go through the engine, writes
 * through validateWrite, deletes through the shared delete module: this file only translates. It serves the primary
 * source: KairosDB's API has no way to name another.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { SharedReads } from '../sharing/shared-reads.js';
import type { Config } from '../gateway/config.js';
import type { QueryOutput } from '../engine/execute.js';
import { CsrfError, InputError, KairographError, UnauthenticatedError } from '../model/errors.js';
import { couldBeCrossSiteForm } from '../http/browser-policy.js';
import { requestError, type Caller, type HttpEdge } from '../http/edge.js';
import type { Logger } from '../lib/log.js';
import { deletePoints } from '../app/delete-points.js';
import { metadataFor } from '../app/metadata.js';
import {
  createRollup,
  deleteRollup,
  getRollup,
  kairosRollupStatus,
  listRollups,
  rollupStatus,
  updateRollup,
  type TaskStatus,
} from '../rollups/rollup-api.js';
import type { RollupScheduler } from '../rollups/rollup-scheduler.js';
import type { RollupTask } from '../rollups/rollup-task.js';
import type { MetricQuery } from '../model/query.js';
import { compileTagFilter } from '../model/tag-filter.js';
import type { Admission } from '../http/admission.js';
import type { Authenticator } from '../http/auth.js';
import type { Scope } from '../http/scopes.js';
import type { Exchange, RequestObserver } from '../http/request-observer.js';
import { AnswerWriter, textAnswer, type Answer } from '../http/answer-writer.js';
import { answerEncoding, type AnswerEncoding } from '../http/compression.js';
import { createRequestContext, type RequestContext } from '../app/request-scope.js';
import { requestStatistics } from '../graphql/use-query-statistics.js';
import { checkMetricPrefix } from '../sources/key-limits.js';
import { validateMetricName } from '../sources/write-validation.js';
import type { Sources } from '../sources/sources.js';
import { inMetric, parseCheckedKairosQuery } from './check-kairos-query.js';
import { findTags } from './find-tags.js';
import { JsonSyntaxError, parseJson, type JsonValue } from './json-text.js';
import { parseDatapoints } from './parse-datapoints.js';
import { readBody } from './read-body.js';
import { renderQueryResponse, renderTagsResponse } from './render-response.js';
import { HttpError } from './rest-errors.js';

const API_PREFIX = '/api/v1';

/** What GET /api/v1/version answers: KairosDB's form first, since clients check that it starts with "KairosDB". */
export const VERSION = `KairosDB 1.3.0-1 (Kairograph ${(createRequire(import.meta.url)('../../package.json') as { version: string }).version})`;

export interface KairosRestDeps {
  readonly sources: Sources;
  readonly config: Config;
  readonly log: Logger;
  /** The gateway's admission control, shared with GraphQL; without it queries run at once. */
  readonly admission?: Admission;
  /** The gateway's shared reads (results cache, work in flight); `sources` are its sources. */
  readonly shared?: SharedReads;
  /** Who may do what (src/http/auth.ts). */
  readonly auth: Authenticator;
  /** Who a request is: its credentials, read once per request for every front end (src/http/edge.ts). */
  readonly edge: HttpEdge;
  /** The gateway's record of each request (its log line and metrics); without it requests go unlogged. */
  readonly observer?: RequestObserver;
  /** The gateway's roll-up scheduler: told at once of tasks changed here. */
  readonly rollups?: RollupScheduler;
}

/** How metrics and logs name a path under /api/v1 that no route matches: never the path itself. */
export const UNKNOWN_REST_ROUTE = `${API_PREFIX}/{unknown}`;

/** True for the paths this handler answers; the gateway routes them here. */
export function isKairosRestPath(url: string | undefined): boolean {
  return url?.startsWith(`${API_PREFIX}/`) === true;
}

export function createKairosRestHandler(deps: KairosRestDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(deps, req, res).catch((error: unknown) => {
      deps.log.error({ err: error }, 'the KairosDB REST handler failed outside a request');
      if (!res.headersSent) send(res, 500, errorsBody([UNEXPECTED]));
      else res.destroy();
    });
  };
}

interface Call {
  readonly req: IncomingMessage;
  readonly ctx: RequestContext;
  readonly params: URLSearchParams;
  /** Captures of the route's pattern (the metric name of DELETE /metric/{name}, still percent-encoded). */
  readonly captures: readonly string[];
  /** How the client takes answers (Accept-Encoding and COMPRESSION): a query's answer is compressed as it is written. */
  readonly encoding: AnswerEncoding | undefined;
}

interface Reply {
  readonly status: number;
  /** Short bodies as text; query answers as the AnswerWriter wrote them (counted, and compressed if they go so). */
  readonly body?: string | Answer;
  /** Headers besides the common ones (a body that is not JSON names its type). */
  readonly headers?: Readonly<Record<string, string>>;
}

type Handler = (call: Call) => Promise<Reply>;

/** A handler and the scope it needs; `null` for KairosDB's version and health checks, which monitors call without credentials. */
type Endpoint = readonly [Handler, Scope | null];

interface Route {
  readonly pattern: RegExp;
  /** The path as metrics and logs name it (`/api/v1/metric/{name}`): never the client's own path. */
  readonly template: string;
  readonly methods: Readonly<Partial<Record<'GET' | 'POST' | 'PUT' | 'DELETE', Endpoint>>>;
}

/** Every route and what each method needs; the route of a query with `save_as` also needs `write` (RequestContext.runQuery). */
export const ROUTES: readonly Route[] = [
  { pattern: /^\/version$/, template: '/version', methods: { GET: [version, null] } },
  { pattern: /^\/health\/check$/, template: '/health/check', methods: { GET: [healthCheck, null] } },
  { pattern: /^\/health\/status$/, template: '/health/status', methods: { GET: [healthStatus, null] } },
  { pattern: /^\/metricnames$/, template: '/metricnames', methods: { GET: [metricNames, 'read'] } },
  { pattern: /^\/datapoints$/, template: '/datapoints', methods: { POST: [addDatapoints, 'write'] } },
  {
    pattern: /^\/datapoints\/query$/,
    template: '/datapoints/query',
    methods: { GET: [queryFromUrl, 'read'], POST: [queryFromBody, 'read'] },
  },
  {
    pattern: /^\/datapoints\/query\/tags$/,
    template: '/datapoints/query/tags',
    methods: { POST: [queryTags, 'read'] },
  },
  {
    pattern: /^\/datapoints\/delete$/,
    template: '/datapoints/delete',
    methods: { POST: [deleteDatapoints, 'delete'] },
  },
  { pattern: /^\/metric\/([^/]+)$/, template: '/metric/{name}', methods: { DELETE: [deleteMetric, 'delete'] } },
  {
    pattern: /^\/metadata\/([^/]+)$/,
    template: '/metadata/{service}',
    methods: { GET: [metadataServiceKeys, 'read'] },
  },
  {
    pattern: /^\/metadata\/([^/]+)\/([^/]+)$/,
    template: '/metadata/{service}/{serviceKey}',
    methods: { GET: [metadataKeys, 'read'] },
  },
  {
    pattern: /^\/metadata\/([^/]+)\/([^/]+)\/([^/]+)$/,
    template: '/metadata/{service}/{serviceKey}/{key}',
    methods: {
      GET: [metadataValue, 'read'],
      POST: [setMetadataValue, 'write'],
      DELETE: [deleteMetadataValue, 'delete'],
    },
  },
  // Roll-up tasks change no points themselves: changing one needs `write`, as the points its runs write do.
  {
    pattern: /^\/rollups$/,
    template: '/rollups',
    methods: { GET: [listRollupTasks, 'read'], POST: [createRollupTask, 'write'] },
  },
  {
    pattern: /^\/rollups\/status\/([^/]+)$/,
    template: '/rollups/status/{id}',
    methods: { GET: [rollupTaskStatus, 'read'] },
  },
  {
    pattern: /^\/rollups\/([^/]+)$/,
    template: '/rollups/{id}',
    methods: { GET: [getRollupTask, 'read'], PUT: [updateRollupTask, 'write'], DELETE: [deleteRollupTask, 'write'] },
  },
];

const UNEXPECTED = 'Unexpected error.';

async function handle(deps: KairosRestDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const rawUrl = req.url ?? '/';
  const queryAt = rawUrl.indexOf('?');
  const pathname = queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt);
  const path = pathname.slice(API_PREFIX.length);
  const exchange = deps.observer?.exchange(req);
  const refuse = (
    status: number,
    code: string,
    message: string,
    headers: Readonly<Record<string, string>> = {},
    quota?: string,
  ) => {
    req.resume();
    exchange?.errors.push({ code, message, ...(quota !== undefined ? { quota } : {}) });
    send(res, status, errorsBody([message]), headers);
  };
  const matched = matchRoute(path);
  if (matched === undefined) return refuse(404, 'NOT_FOUND', `${pathname} is not a path of the KairosDB REST API`);
  const { route, captures } = matched;
  if (exchange) exchange.route = `${API_PREFIX}${route.template}`;
  const allowed = [...Object.keys(route.methods), 'OPTIONS'].join(', ');
  // CORS preflights are the edge's (src/http/edge.ts); a plain OPTIONS asks what the path takes.
  if (req.method === 'OPTIONS') {
    req.resume();
    return send(res, 204, undefined, { allow: allowed });
  }
  const endpoint = route.methods[req.method as keyof Route['methods']];
  if (endpoint === undefined)
    return refuse(405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${pathname} (${allowed})`, {
      allow: allowed,
    });
  const [handler, scope] = endpoint;
  const what = `${req.method} ${API_PREFIX}${route.template}`;
  let caller: Caller | undefined;
  try {
    // A form or text/plain POST needs no preflight, so any page could send it with the browser's credentials.
    if (req.method === 'POST' && couldBeCrossSiteForm(req.headers))
      throw new CsrfError(
        `${what} needs Content-Type: application/json (curl: -H 'Content-Type: application/json') or a header a form cannot send (x-kairograph-token, x-requested-with): ${CROSS_SITE_REASON}`,
      );
    if (scope !== null) caller = await authorized(deps, req, scope, what);
  } catch (error) {
    if (!(error instanceof KairographError)) throw error;
    const { code, message, quota } = requestError(error);
    return refuse(error.status, code, message, error.headers, quota);
  }

  const clientGone = new AbortController();
  const header = req.headers['x-request-id'];
  const ctx = createRequestContext(deps.sources, deps.config, deps.log, {
    requestId: typeof header === 'string' ? header : null,
    clientSignal: clientGone.signal,
    ...(deps.admission ? { admission: deps.admission } : {}),
    ...(deps.shared ? { shared: deps.shared } : {}),
    auth: deps.auth,
    principal: caller?.principal ?? deps.auth.anonymous,
    ...(caller ? { client: caller.client } : {}),
    challenge: 'Basic',
    ...(deps.rollups ? { rollups: deps.rollups } : {}),
  });
  res.once('close', () => {
    if (!res.writableFinished) clientGone.abort(new Error('the client closed the connection'));
    ctx.dispose();
  });
  if (exchange) exchange.ctx = ctx;
  if (scope !== null) ctx.sourcesUsed.add(deps.sources.primary.name);
  const started = performance.now();
  const idHeader = { 'x-request-id': ctx.requestId };
  try {
    const encoding = answerEncoding(req.headers['accept-encoding'], {
      enabled: deps.config.compression,
      minBytes: deps.config.compressionMinBytes,
    });
    const reply = await handler({
      req,
      ctx,
      params: new URLSearchParams(queryAt < 0 ? '' : rawUrl.slice(queryAt + 1)),
      captures,
      encoding,
    });
    const headers = { ...idHeader, ...reply.headers };
    if (reply.body === undefined) send(res, reply.status, undefined, headers);
    else {
      const answer = typeof reply.body === 'object' ? reply.body : await textAnswer(reply.body, encoding);
      await sendAnswer(res, reply.status, answer, headers, ctx.signal);
    }
  } catch (error) {
    sendError(res, ctx, error, idHeader, exchange);
  } finally {
    // A handler that answered without reading the body leaves it to be drained, so the connection stays usable.
    if (!req.readableEnded) req.resume();
  }
  // The request's log line (src/http/request-observer.ts) says what it cost, by query and by store table.
  if (exchange) exchange.statistics = requestStatistics(ctx, performance.now() - started);
}

/**
 * The request's caller, once it has `scope` on the primary source. Under PERSISTED_ONLY a scoped request needs
 * credentials: the REST API has no persisted queries, so every request of it is free-form, like GraphQL text.
 */
async function authorized(
  { auth, edge, sources }: KairosRestDeps,
  req: IncomingMessage,
  scope: Scope,
  what: string,
): Promise<Caller> {
  const caller = await edge.caller(req, 'Basic');
  if (!auth.mayQueryFreely(caller.principal)) {
    throw new UnauthenticatedError(
      `${what} needs credentials (HTTP Basic or a token): PERSISTED_ONLY is on, and the REST API takes only free-form requests`,
      'Basic',
    );
  }
  auth.authorize(caller.principal, scope, what, 'Basic', sources.primary.name);
  return caller;
}

const CROSS_SITE_REASON =
  "a form or text/plain body, or none, could be a cross-site request sent with the browser's credentials";

function matchRoute(path: string): { route: Route; captures: string[] } | undefined {
  for (const route of ROUTES) {
    const match = route.pattern.exec(path);
    if (match !== null) return { route, captures: match.slice(1) };
  }
  return undefined;
}

/** Typed errors keep their message, status and headers; anything else is logged in full and masked, as GraphQL does. */
function sendError(
  res: ServerResponse,
  ctx: RequestContext,
  error: unknown,
  headers: Readonly<Record<string, string>>,
  exchange: Exchange | undefined,
): void {
  const known =
    error instanceof HttpError || error instanceof KairographError
      ? error
      : ctx.signal.aborted && ctx.signal.reason instanceof KairographError
        ? ctx.signal.reason
        : undefined;
  if (known !== undefined) {
    exchange?.errors.push(
      known instanceof KairographError
        ? requestError(known)
        : { code: HTTP_ERROR_CODES[known.status] ?? 'BAD_REQUEST', message: known.message },
    );
    if (!res.destroyed) send(res, known.status, errorsBody([known.message]), { ...headers, ...known.headers });
    return;
  }
  // The client sees a masked message; the log keeps the whole error, stack included.
  ctx.log.error({ err: error }, 'unexpected error in a KairosDB REST request');
  exchange?.errors.push({
    code: 'INTERNAL_SERVER_ERROR',
    message: error instanceof Error ? error.message : String(error),
  });
  if (!res.destroyed) send(res, 500, errorsBody([UNEXPECTED]), headers);
}

/** The codes of the REST API's HTTP-level refusals, named as GraphQL's table names them. */
const HTTP_ERROR_CODES: Readonly<Record<number, string>> = {
  408: 'REQUEST_TIMEOUT',
  413: 'REQUEST_ENTITY_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

/**
 * Every response carries KairosDB's no-caching headers (`MetricsResource.setHeaders`). KairosDB's
 * `Access-Control-Allow-Origin: *` is not sent: cross-origin access is CORS_ORIGINS's (src/http/browser-policy.ts).
 */
export const COMMON_HEADERS = { pragma: 'no-cache', 'cache-control': 'no-cache', expires: '0' } as const;

function send(
  res: ServerResponse,
  status: number,
  body?: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const payload = body === undefined ? undefined : Buffer.from(body, 'utf8');
  res.writeHead(status, {
    ...COMMON_HEADERS,
    ...(payload !== undefined
      ? { 'content-type': 'application/json; charset=UTF-8', 'content-length': String(payload.length) }
      : status !== 204
        ? { 'content-length': '0' }
        : {}),
    ...headers,
  });
  res.end(payload);
}

/**
 * Sends a written answer with its length, chunk by chunk, waiting for the socket to drain between chunks, so a large
 * answer does not pile up in the socket's buffer; a client that stops reading is cut off when the request's time limit
 * passes.
 */
async function sendAnswer(
  res: ServerResponse,
  status: number,
  answer: Answer,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<void> {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    ...COMMON_HEADERS,
    'content-type': 'application/json; charset=UTF-8',
    'content-length': String(answer.bodyBytes),
    ...(answer.coding !== undefined ? { 'content-encoding': answer.coding } : {}),
    ...(answer.varies ? { vary: 'Accept-Encoding' } : {}),
    ...headers,
  });
  for (const chunk of answer.body) {
    if (res.destroyed) return;
    if (!res.write(chunk)) await drained(res, signal);
  }
  res.end();
}

function drained(res: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      signal.removeEventListener('abort', cut);
      resolve();
    };
    const cut = () => {
      res.destroy();
      done();
    };
    res.once('drain', done);
    res.once('close', done);
    if (signal.aborted) cut();
    else signal.addEventListener('abort', cut, { once: true });
  });
}

function errorsBody(messages: readonly string[]): string {
  return JSON.stringify({ errors: messages });
}

async function version(): Promise<Reply> {
  return { status: 200, body: JSON.stringify({ version: VERSION }) };
}

/** KairosDB answers an unhealthy check with 500 whatever the cause; monitors expect exactly that. */
async function healthCheck({ ctx }: Call): Promise<Reply> {
  const failure = await pingFailure(ctx);
  return failure === undefined ? { status: 204 } : { status: 500, body: errorsBody([failure]) };
}

async function healthStatus({ ctx }: Call): Promise<Reply> {
  const failure = await pingFailure(ctx);
  return { status: 200, body: JSON.stringify([`Datastore-Query: ${failure === undefined ? 'OK' : 'FAIL'}`]) };
}

/** Undefined when the store answers; otherwise what the client may be told (a typed error's message, else masked). */
async function pingFailure(ctx: RequestContext): Promise<string | undefined> {
  try {
    await ctx.sources.primary.ping();
    return undefined;
  } catch (error) {
    if (error instanceof KairographError) return error.message;
    ctx.log.error({ err: error }, 'the store failed its health check');
    return UNEXPECTED;
  }
}

async function metricNames({ ctx, params }: Call): Promise<Reply> {
  const prefix = params.get('prefix') ?? '';
  const source = ctx.sources.primary;
  checkMetricPrefix(source.limits, prefix, 'prefix');
  const names = await source.metricNames(prefix);
  return { status: 200, body: JSON.stringify({ results: names }) };
}

async function addDatapoints({ req, ctx }: Call): Promise<Reply> {
  const json = await readJsonBody(req, ctx, true);
  const source = ctx.sources.primary;
  const batch = parseDatapoints(json, { maxPoints: ctx.config.maxWritePoints, keys: source.limits });
  if (batch.series.length > 0) {
    await source.write(batch);
    ctx.loaders.clear();
  }
  return { status: 204 };
}

async function queryFromBody({ req, ctx, encoding }: Call): Promise<Reply> {
  return runQueries(ctx, await readJsonBody(req, ctx, false), encoding);
}

/** GET ?query=<url-encoded JSON>, as KairosDB's getQuery. */
async function queryFromUrl({ ctx, params, encoding }: Call): Promise<Reply> {
  const text = params.get('query');
  if (text === null || text.trim() === '')
    throw new InputError('query', text, 'is required: the query JSON, URL-encoded');
  return runQueries(ctx, parseJsonText(text, 'the query parameter', false), encoding);
}

/** Every metric is validated before any runs (a save_as must not write for a request that is refused), then all run together. */
async function runQueries(ctx: RequestContext, json: JsonValue, encoding: AnswerEncoding | undefined): Promise<Reply> {
  const queries = parseAndCheck(ctx, json);
  const settled = await Promise.allSettled(
    queries.map((query, i) => inMetric(i, () => ctx.runQuery(query, `metrics[${i}]`))),
  );
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  const outputs = settled.map((s) => (s as PromiseFulfilledResult<QueryOutput>).value);
  const answers = outputs.map((output, i) => ({ output, excludeTags: queries[i]!.excludeTags }));
  return { status: 200, body: await renderQueryResponse(answers, new AnswerWriter(ctx.budget, ctx.lane, encoding)) };
}

/** Aggregators are parsed and checked, then ignored, as KairosDB does for this endpoint. */
async function queryTags({ req, ctx }: Call): Promise<Reply> {
  const queries = parseAndCheck(ctx, await readJsonBody(req, ctx, false));
  const found = await Promise.all(
    queries.map((query) => findTags(ctx.sources.primary, ctx.loaders, query, ctx.config.restTagsRowPeriods)),
  );
  for (const [i, f] of found.entries())
    for (const warning of f.warnings) ctx.log.warn({ query: `metrics[${i}]` }, warning);
  return { status: 200, body: renderTagsResponse(found.map((f, i) => ({ name: queries[i]!.metric, tags: f.tags }))) };
}

/** Each metric's series and range, through the shared delete path; the metric's name stays (KairosDB's behaviour). */
async function deleteDatapoints({ req, ctx }: Call): Promise<Reply> {
  const queries = parseAndCheck(ctx, await readJsonBody(req, ctx, false));
  for (const query of queries) {
    const summary = await deletePoints(
      ctx.sources.primary,
      ctx.loaders,
      query.metric,
      query.range,
      compileTagFilter(query.tags, 'tags'),
    );
    for (const warning of summary.warnings) ctx.log.warn({ metric: query.metric }, warning);
  }
  return { status: 204 };
}

/** KairosDB deletes from Long.MIN to Long.MAX, then the name; the model's widest range stands in for those. */
const ALL_TIME = { startMs: -Number.MAX_SAFE_INTEGER, endMs: Number.MAX_SAFE_INTEGER };

async function deleteMetric({ ctx, captures }: Call): Promise<Reply> {
  const source = ctx.sources.primary;
  const metric = validateMetricName(pathSegment(captures[0]!, 'metric'), 'metric', source.limits);
  const summary = await deletePoints(source, ctx.loaders, metric, ALL_TIME, () => true);
  for (const warning of summary.warnings) ctx.log.warn({ metric }, warning);
  await source.deleteMetricName(metric);
  return { status: 204 };
}

/** A path parameter, percent-decoded; `field` names it in the error when it cannot be. */
function pathSegment(encoded: string, field: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new InputError(field, encoded, 'is not valid percent-encoding');
  }
}

// KairosDB's MetadataResource: lists as {"results": [...]}, a value as its own text, changes answered with 204.

function metadataAt(ctx: RequestContext, captures: readonly string[], change: boolean) {
  const [service, serviceKey, key] = captures.map((segment, i) =>
    pathSegment(segment, ['service', 'serviceKey', 'key'][i]!),
  );
  const at = {
    service: service!,
    ...(serviceKey !== undefined ? { serviceKey } : {}),
    ...(key !== undefined ? { key } : {}),
  };
  return { index: metadataFor(ctx.sources.primary, at, change), service: service!, serviceKey: serviceKey!, key: key! };
}

async function metadataServiceKeys({ ctx, captures }: Call): Promise<Reply> {
  const { index, service } = metadataAt(ctx, captures, false);
  return { status: 200, body: JSON.stringify({ results: await index.serviceKeys(service) }) };
}

async function metadataKeys({ ctx, captures, params }: Call): Promise<Reply> {
  const { index, service, serviceKey } = metadataAt(ctx, captures, false);
  return {
    status: 200,
    body: JSON.stringify({ results: await index.keys(service, serviceKey, params.get('startsWith') ?? '') }),
  };
}

/**
 * The value as it was set, not as JSON: KairosDB answers with the text itself, typed as JSON unless the client asks
 * for text/plain. A missing key is a 404, with KairosDB's error body unless the client asked for text.
 */
async function metadataValue({ req, ctx, captures }: Call): Promise<Reply> {
  const { index, service, serviceKey, key } = metadataAt(ctx, captures, false);
  const text = wantsPlainText(req.headers.accept);
  const found = await index.value(service, serviceKey, key);
  if (found === undefined) return text ? { status: 404 } : { status: 404, body: errorsBody(['Key not found']) };
  return {
    status: 200,
    body: found.value,
    ...(text ? { headers: { 'content-type': 'text/plain; charset=UTF-8' } } : {}),
  };
}

async function setMetadataValue({ req, ctx, captures }: Call): Promise<Reply> {
  const { index, service, serviceKey, key } = metadataAt(ctx, captures, true);
  const body = await readBody(req, ctx.config.restMaxBodyBytes, ctx.signal);
  await index.set(service, serviceKey, key, body.toString('utf8'));
  return { status: 204 };
}

async function deleteMetadataValue({ ctx, captures }: Call): Promise<Reply> {
  const { index, service, serviceKey, key } = metadataAt(ctx, captures, true);
  await index.delete(service, serviceKey, key);
  return { status: 204 };
}

// KairosDB's RollUpResource: tasks as the JSON they are stored as, changes answered with {id, name, attributes.url}.

const ROLLUPS_URL = `${API_PREFIX}/rollups/`;

function rollupId(captures: readonly string[]): string {
  return pathSegment(captures[0]!, 'id');
}

function rollupCreated(task: RollupTask): Reply {
  return {
    status: 200,
    body: JSON.stringify({ id: task.id, name: task.name, attributes: { url: `${ROLLUPS_URL}${task.id}` } }),
  };
}

function rollupNotFound(id: string, what = 'Resource'): Reply {
  return { status: 404, body: errorsBody([`${what} not found for id ${id}`]) };
}

async function listRollupTasks({ ctx }: Call): Promise<Reply> {
  return { status: 200, body: `[${(await listRollups(ctx)).map((task) => task.json).join(',')}]` };
}

async function createRollupTask({ req, ctx }: Call): Promise<Reply> {
  const body = await readBody(req, ctx.config.restMaxBodyBytes, ctx.signal);
  return rollupCreated(await createRollup(ctx, body.toString('utf8')));
}

async function getRollupTask({ ctx, captures }: Call): Promise<Reply> {
  const id = rollupId(captures);
  const stored = await getRollup(ctx, id);
  return stored === undefined ? rollupNotFound(id) : { status: 200, body: stored.json };
}

async function updateRollupTask({ req, ctx, captures }: Call): Promise<Reply> {
  const id = rollupId(captures);
  const body = await readBody(req, ctx.config.restMaxBodyBytes, ctx.signal);
  const task = await updateRollup(ctx, id, body.toString('utf8'));
  return task === undefined ? rollupNotFound(id) : rollupCreated(task);
}

async function deleteRollupTask({ ctx, captures }: Call): Promise<Reply> {
  const id = rollupId(captures);
  return (await deleteRollup(ctx, id)) ? { status: 204 } : rollupNotFound(id);
}

/**
 * KairosDB's status of the task's last run (`RollupTaskStatus`, in its REST names), and Kairograph's own under
 * `kairograph`: progress, pending periods, failures and the next retry, skipped periods, a claim another gateway holds.
 */
async function rollupTaskStatus({ ctx, captures }: Call): Promise<Reply> {
  const id = rollupId(captures);
  const stored = await getRollup(ctx, id);
  const kairos = parseKairosStatus(await kairosRollupStatus(ctx, id));
  if (stored === undefined)
    return kairos === undefined ? rollupNotFound(id, 'Status') : { status: 200, body: JSON.stringify(kairos) };
  const own = await rollupStatus(ctx, stored);
  // Which gateway ran or holds a task names a host and a process: the operators' (the admin scope), as in GraphQL.
  const status = restStatusOf(own, ctx.principal.scopes.has('admin'));
  return {
    status: 200,
    body: JSON.stringify({
      ...(kairos ?? { statuses: [], executing_host: '', next_scheduled: 'Never' }),
      kairograph: status,
    }),
  };
}

/** KairosDB's stored status (plain Gson, Java names) in the names its REST API answers with (snake_case). */
function parseKairosStatus(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    return snakeCase(JSON.parse(text)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function snakeCase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCase);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snakeCase(v)]),
  );
}

function restStatusOf(status: TaskStatus, showGateways: boolean): Record<string, unknown> {
  const run = (r: NonNullable<TaskStatus['lastRun']>) => ({
    period_start: r.periodStartMs,
    period_end: r.periodEndMs,
    started: r.startedMs,
    finished: r.finishedMs,
    duration_ms: Math.round(r.durationMs),
    points_written: r.pointsWritten,
    ...(r.error !== undefined ? { error: r.error } : {}),
    ...(showGateways ? { gateway: r.owner } : {}),
  });
  return {
    ...(status.error !== undefined ? { error: status.error } : {}),
    ...(status.completedThroughMs !== undefined ? { completed_through: status.completedThroughMs } : {}),
    pending_periods: status.pendingPeriods,
    failures: status.failures,
    ...(status.retryAtMs !== undefined ? { retry_at: status.retryAtMs } : {}),
    ...(status.lastRun ? { last_run: run(status.lastRun) } : {}),
    ...(status.lastSuccess ? { last_success: run(status.lastSuccess) } : {}),
    ...(status.skipped
      ? { skipped: { from: status.skipped.fromMs, to: status.skipped.toMs, periods: status.skipped.periods } }
      : {}),
    ...(status.heldBy && showGateways
      ? { held_by: { gateway: status.heldBy.owner, until: status.heldBy.untilMs } }
      : {}),
  };
}

/** True when the client prefers text/plain to JSON (JAX-RS picks KairosDB's text/plain method for such an Accept). */
function wantsPlainText(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const types = accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  return types.includes('text/plain') && !types.includes('application/json');
}

/** The request's queries, each validated as the engine will validate it (check-kairos-query.ts). */
function parseAndCheck(ctx: RequestContext, json: JsonValue): MetricQuery[] {
  return parseCheckedKairosQuery(json, ctx.nowMs, ctx.sources.primary.limits);
}

async function readJsonBody(req: IncomingMessage, ctx: RequestContext, exactNumbers: boolean): Promise<JsonValue> {
  const body = await readBody(req, ctx.config.restMaxBodyBytes, ctx.signal);
  return parseJsonText(body.toString('utf8'), 'request body', exactNumbers);
}

function parseJsonText(text: string, what: string, exactNumbers: boolean): JsonValue {
  try {
    // A byte order mark is not JSON, but some clients send one.
    return parseJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, { exactNumbers });
  } catch (error) {
    if (error instanceof JsonSyntaxError)
      throw new KairographError('BAD_USER_INPUT', `${what} is not valid JSON: ${error.message}`);
    throw error;
  }
}
