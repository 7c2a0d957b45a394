/**
 * Prometheus's HTTP query API under /prometheus/<source>/api/v1 (docs/prometheus.md), one Grafana data source per
 * source: one module per endpoint group behind one find-my-way router, and what every request of it goes through:
 * routing (404 and 405 in Prometheus's error body), the source its path names, the route's scope on that source, one
 * request scope, the answer in Prometheus's envelope or its error.
 *
 * Form POSTs are taken without the REST API's cross-site form rule: they are Prometheus's protocol (Grafana's server
 * sends them), every endpoint here only reads, a page of another site cannot read the answer, and the edge refuses
 * requests from pages of origins CORS_ORIGINS does not list.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import FindMyWay from 'find-my-way';
import { pathAndQuery } from '../http/canonical-path.js';
import { answerEncoding } from '../http/compression.js';
import type { Caller } from '../http/edge.js';
import { MethodNotAllowedError, NotFoundError } from '../http/http-errors.js';
import { serveScoped } from '../http/scoped-exchange.js';
import { sourceInPath } from '../http/path-source.js';
import { KairographError, UnauthenticatedError } from '../model/errors.js';
import type { Scope } from '../model/principal.js';
import type { Source } from '../sources/source.js';
import { METADATA_ROUTES } from './metadata-routes.js';
import { sendPromError, sendSuccess } from './prom-answers.js';
import type { Endpoint, Method, PrometheusDeps, PromRoute } from './prom-endpoint.js';
import { QUERY_ROUTES } from './query-routes.js';

const PROMETHEUS_PREFIX = '/prometheus/';

/** True for the paths this front end answers; the gateway routes them to it. */
export function isPrometheusPath(path: string): boolean {
  return path.startsWith(PROMETHEUS_PREFIX);
}

/** How metrics and logs name a /prometheus/ path that no route matches: never the path itself. */
export const UNKNOWN_PROMETHEUS_ROUTE = '/prometheus/{source}/{unknown}';

interface Stored {
  readonly template: string;
  readonly allow: string;
  readonly endpoint: Endpoint | undefined;
}

export function createPrometheusHandler(deps: PrometheusDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const router = FindMyWay({ maxParamLength: Number.MAX_SAFE_INTEGER });
  const routes: readonly PromRoute[] = [...QUERY_ROUTES, ...METADATA_ROUTES];
  for (const route of routes) {
    const path = `${PROMETHEUS_PREFIX}:source/api/v1${route.path}`;
    const template = path.replace(/:(\w+)/g, '{$1}');
    const allow = Object.keys(route.methods).join(', ');
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const) {
      const endpoint = route.methods[method as Method];
      router.on(method, path, unused, { template, allow, endpoint } satisfies Stored);
    }
  }
  return (req, res) => {
    handle(deps, router, req, res).catch((error: unknown) => {
      deps.log.error({ err: error }, 'the Prometheus handler failed outside a request');
      if (!res.headersSent) sendPromError(res, error, {}, undefined, deps.log);
      else res.destroy();
    });
  };
}

async function handle(
  deps: PrometheusDeps,
  router: FindMyWay.Instance<FindMyWay.HTTPVersion.V1>,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const { pathname, query } = pathAndQuery(req.url);
  const exchange = deps.observer?.exchange(req);
  const refuse = (error: unknown) => {
    req.resume();
    sendPromError(res, error, {}, exchange, deps.log);
  };
  const method = req.method ?? '';
  // Escapes stay as sent (a label name is decoded by its endpoint), so `%` reaches the route as it is.
  const found = router.find(method as FindMyWay.HTTPMethod, pathname.replaceAll('%', '%25'));
  if (found === null) return refuse(new NotFoundError(`${pathname} is not a path of the Prometheus API`));
  const { template, allow, endpoint } = found.store as Stored;
  if (exchange) exchange.route = template;
  if (endpoint === undefined)
    return refuse(new MethodNotAllowedError(`${method} is not allowed on ${template} (${allow})`, allow));
  const [handler, scope] = endpoint;
  const what = `${method} ${template}`;
  let caller: Caller;
  let source: Source;
  try {
    // Credentials first: whoever may not read learns nothing of the sources, not even which exist.
    caller = await authorized(deps, req, scope, what);
    source = sourceInPath(
      deps.sources,
      caller.principal,
      found.params['source'] ?? '',
      'the data source URL is /prometheus/<source>',
    );
    deps.auth.authorize(caller.principal, scope, what, 'Basic', source.name);
  } catch (error) {
    if (!(error instanceof KairographError)) throw error;
    return refuse(error);
  }
  await serveScoped(
    {
      req,
      res,
      scopes: deps.scopes,
      caller,
      exchange,
      source: source.name,
    },
    async (ctx, idHeader) => {
      const encoding = answerEncoding(req.headers['accept-encoding'], deps.settings.compression);
      const reply = await handler({ req, ctx, deps, source, path: found.params, query, encoding });
      await sendSuccess(res, reply, idHeader, encoding, ctx);
    },
    (error, ctx, idHeader) => sendPromError(res, error, idHeader, exchange, ctx.log, ctx.signal),
  );
}

/** The caller, once it has `scope`; under PERSISTED_ONLY every request here is free-form, as REST's. */
async function authorized(
  { auth, edge }: PrometheusDeps,
  req: IncomingMessage,
  scope: Scope,
  what: string,
): Promise<Caller> {
  const caller = await edge.caller(req, 'Basic');
  if (!auth.mayQueryFreely(caller.principal)) {
    throw new UnauthenticatedError(
      `${what} needs credentials (HTTP Basic or a token): PERSISTED_ONLY is on, and the Prometheus API takes only free-form requests`,
      'Basic',
    );
  }
  auth.authorize(caller.principal, scope, what, 'Basic');
  return caller;
}

/** find-my-way's handler, which is never called: the route's store is read instead. */
function unused(): void {}
