/**
 * KairosDB's REST API under /api/v1 (COMPATIBILITY.md beside this file): one module per endpoint group behind one
 * router, and what every request of it goes through: routing (404, 405, OPTIONS), the cross-site form rule, the route's
 * scope, one request scope, the reply or the error in KairosDB's form. It serves the primary source: KairosDB's API has
 * no way to name another.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { couldBeCrossSiteForm } from '../http/browser-policy.js';
import { pathAndQuery } from '../http/canonical-path.js';
import { answerEncoding } from '../http/compression.js';
import type { Caller } from '../http/edge.js';
import { MethodNotAllowedError, NotFoundError } from '../http/http-errors.js';
import { serveScoped } from '../http/scoped-exchange.js';
import { CsrfError, KairographError, UnauthenticatedError } from '../model/errors.js';
import type { Scope } from '../model/principal.js';
import { DATAPOINT_ROUTES } from './datapoint-routes.js';
import { DELETE_ROUTES } from './delete-routes.js';
import { METADATA_ROUTES } from './metadata-routes.js';
import { QUERY_ROUTES } from './query-routes.js';
import { sendEmpty, sendError, sendReply, sendUnexpected } from './rest-answers.js';
import type { KairosRestDeps } from './rest-endpoint.js';
import { RestRouter } from './rest-router.js';
import { ROLLUP_ROUTES } from './rollup-routes.js';
import { VERSION_ROUTES } from './version-routes.js';

export function createKairosRestHandler(deps: KairosRestDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const router = new RestRouter([
    ...VERSION_ROUTES,
    ...DATAPOINT_ROUTES,
    ...QUERY_ROUTES,
    ...DELETE_ROUTES,
    ...METADATA_ROUTES,
    ...ROLLUP_ROUTES,
  ]);
  return (req, res) => {
    handle(deps, router, req, res).catch((error: unknown) => {
      deps.log.error({ err: error }, 'the KairosDB REST handler failed outside a request');
      if (!res.headersSent) sendUnexpected(res);
      else res.destroy();
    });
  };
}

async function handle(deps: KairosRestDeps, router: RestRouter, req: IncomingMessage, res: ServerResponse) {
  const { pathname, query } = pathAndQuery(req.url);
  const exchange = deps.observer?.exchange(req);
  // Refusals before the request's scope opens: the body is drained, unread, and no request id is given.
  const refuse = (error: KairographError) => {
    req.resume();
    sendError(res, error, {}, exchange, deps.log);
  };
  const method = req.method ?? '';
  const match = router.match(method, pathname);
  if (match === undefined) return refuse(new NotFoundError(`${pathname} is not a path of the KairosDB REST API`));
  if (exchange) exchange.route = match.template;
  // CORS preflights are the edge's (src/http/edge.ts); a plain OPTIONS asks what the path takes.
  if (method === 'OPTIONS') {
    req.resume();
    return sendEmpty(res, 204, { allow: match.allow });
  }
  if (match.endpoint === undefined)
    return refuse(new MethodNotAllowedError(`${method} is not allowed on ${pathname} (${match.allow})`, match.allow));
  const [handler, scope] = match.endpoint;
  const what = `${method} ${match.template}`;
  let caller: Caller | undefined;
  try {
    // A form or text/plain POST needs no preflight, so any page could send it with the browser's credentials.
    if (method === 'POST' && couldBeCrossSiteForm(req.headers))
      throw new CsrfError(
        `${what} needs Content-Type: application/json (curl: -H 'Content-Type: application/json') or a header a form cannot send (x-kairograph-token, x-requested-with): ${CROSS_SITE_REASON}`,
      );
    if (scope !== null) caller = await authorized(deps, req, scope, what);
  } catch (error) {
    if (!(error instanceof KairographError)) throw error;
    return refuse(error);
  }

  await serveScoped(
    {
      req,
      res,
      scopes: deps.scopes,
      caller: caller ?? { principal: deps.auth.anonymous },
      exchange,
      source: scope !== null ? deps.sources.primary.name : undefined,
    },
    async (ctx, idHeader) => {
      const encoding = answerEncoding(req.headers['accept-encoding'], deps.settings.compression);
      const reply = await handler({
        req,
        ctx,
        deps,
        params: query,
        path: match.params,
        encoding,
      });
      await sendReply(res, reply, idHeader, encoding, ctx.signal);
    },
    (error, ctx, idHeader) => sendError(res, error, idHeader, exchange, ctx.log, ctx.signal),
  );
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
