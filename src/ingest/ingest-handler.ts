/**
 * The collectors' HTTP write protocols (docs/ingest.md): Prometheus remote write at
 * /prometheus/<source>/api/v1/write, InfluxDB's line protocol at /write and /api/v2/write, and InfluxDB's /ping, which
 * its clients call before writing. What every request here goes through: its route, its credentials (InfluxDB's
 * `Token` scheme and `u`/`p` parameters mapped onto the house's, src/http/auth.ts), the `write` scope on the source it
 * names, one request scope, and its errors in the protocol's own form.
 *
 * Bodies of any Content-Type are taken without the REST API's cross-site form rule: collectors send line protocol as
 * text/plain, and the edge refuses requests from pages of origins CORS_ORIGINS does not list before they get here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pathAndQuery } from '../http/canonical-path.js';
import type { PresentedCredentials } from '../http/auth.js';
import { TOKEN_HEADER } from '../http/auth.js';
import type { Caller } from '../http/edge.js';
import { MethodNotAllowedError } from '../http/http-errors.js';
import { serveScoped } from '../http/scoped-exchange.js';
import { sourceInPath } from '../http/path-source.js';
import { send } from '../http/send-answer.js';
import { KairographError } from '../model/errors.js';
import type { Source } from '../sources/source.js';
import { type IngestErrorForm, sendIngestError } from './ingest-answers.js';
import type { IngestCall, IngestDeps } from './ingest-call.js';
import { writeLines } from './line-protocol-route.js';
import { remoteWrite } from './remote-write-route.js';

const REMOTE_WRITE = /^\/prometheus\/([^/]+)\/api\/v1\/write$/;
const REMOTE_WRITE_TEMPLATE = '/prometheus/{source}/api/v1/write';
/** What InfluxDB 1.8 answers in X-Influxdb-Version: clients check for 1.x or 2.x to pick their API. */
const INFLUX_VERSION = '1.8.10';

type Protocol = 'remote_write' | 'influx_v1' | 'influx_v2' | 'ping';

/** The route template of an ingest path (what metrics and logs name it by), or undefined for any other path. */
export function ingestRoute(path: string): string | undefined {
  if (path === '/write' || path === '/api/v2/write' || path === '/ping') return path;
  return REMOTE_WRITE.test(path) ? REMOTE_WRITE_TEMPLATE : undefined;
}

export function createIngestHandler(deps: IngestDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(deps, req, res).catch((error: unknown) => {
      deps.log.error({ err: error }, 'the ingest handler failed outside a request');
      if (!res.headersSent) sendIngestError(res, 'text', error, {}, undefined, deps.log);
      else res.destroy();
    });
  };
}

async function handle(deps: IngestDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { pathname, query } = pathAndQuery(req.url);
  const exchange = deps.observer?.exchange(req);
  const protocol = protocolOf(pathname);
  const form: IngestErrorForm =
    protocol === 'influx_v1' ? 'influx-v1' : protocol === 'remote_write' ? 'text' : 'influx-v2';
  const refuse = (error: unknown) => {
    req.resume();
    sendIngestError(res, form, error, {}, exchange, deps.log);
  };
  const method = req.method ?? '';
  if (protocol === 'ping') {
    if (method !== 'GET' && method !== 'HEAD')
      return refuse(new MethodNotAllowedError(`${method} is not allowed on /ping (GET, HEAD)`, 'GET, HEAD'));
    req.resume();
    return send(res, 204, undefined, {}, { 'x-influxdb-version': INFLUX_VERSION });
  }
  const template = ingestRoute(pathname)!;
  if (method !== 'POST')
    return refuse(new MethodNotAllowedError(`${method} is not allowed on ${template} (POST)`, 'POST'));
  const what = `POST ${template}`;
  let caller: Caller;
  let source: Source;
  try {
    // Credentials first: whoever may not write learns nothing of the sources, not even which exist.
    caller =
      protocol === 'remote_write'
        ? await deps.edge.caller(req, 'Basic')
        : await deps.edge.callerOf(influxCredentials(req, query), req.socket.remoteAddress ?? '');
    deps.auth.authorize(caller.principal, 'write', what, 'Basic');
    source =
      protocol === 'remote_write'
        ? sourceInPath(
            deps.sources,
            caller.principal,
            REMOTE_WRITE.exec(pathname)![1]!,
            'remote write goes to /prometheus/<source>/api/v1/write',
          )
        : influxSource(deps, query.get(protocol === 'influx_v1' ? 'db' : 'bucket'));
    deps.auth.authorize(caller.principal, 'write', what, 'Basic', source.name);
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
      const call: IngestCall = { req, res, ctx, deps, source, query, idHeader };
      if (protocol === 'remote_write') await remoteWrite(call);
      else await writeLines(call, protocol === 'influx_v1' ? 'v1' : 'v2');
    },
    (error, ctx, idHeader) => sendIngestError(res, form, error, idHeader, exchange, ctx.log, ctx.signal),
  );
}

function protocolOf(path: string): Protocol {
  if (path === '/write') return 'influx_v1';
  if (path === '/api/v2/write') return 'influx_v2';
  if (path === '/ping') return 'ping';
  return 'remote_write';
}

/**
 * InfluxDB clients' credentials as the house's: `Authorization: Token <t>` is a token (Bearer); the 1.x `u` and `p`
 * parameters are a user and password (HTTP Basic); any other Authorization header, or x-kairograph-token, as sent.
 */
function influxCredentials(req: IncomingMessage, query: URLSearchParams): PresentedCredentials {
  const token = req.headers[TOKEN_HEADER];
  let authorization = req.headers.authorization;
  const scheme = /^token\s+/i.exec(authorization ?? '');
  if (authorization !== undefined && scheme !== null) authorization = `Bearer ${authorization.slice(scheme[0].length)}`;
  const user = query.get('u');
  const password = query.get('p');
  if ((authorization === undefined || authorization === '') && user !== null && password !== null)
    authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  return { authorization, token: typeof token === 'string' ? token : undefined };
}

/** The source `db` or `bucket` names when one is so named; any other name (or none) writes to the primary source. */
function influxSource({ sources }: IngestDeps, name: string | null): Source {
  return (name !== null && sources.all.find((s) => s.name === name)) || sources.primary;
}
