/**
 * The security suite, as data: principals × routes × methods × path forms × origins × content types × Host headers,
 * each with the answer the rules give it, run over raw HTTP against a real gateway (paths as sent, never normalised
 * by the client). Every front end lists its routes in ROUTES, so a new front end inherits every check by adding rows.
 * The rules, in the order the gateway applies them: the request target (src/http/canonical-path.ts), the Host and the
 * Origin (src/http/browser-policy.ts), the cross-site content types, then credentials and scopes.
 */
import { Agent, request } from 'node:http';

export type Scope = 'read' | 'write' | 'delete' | 'admin';
export type Api = 'graphql' | 'rest' | 'prometheus' | 'operations';

export interface Route {
  readonly api: Api;
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** The canonical path and query. */
  readonly path: string;
  /** What it needs; null for the open ones (probes, KairosDB's version). */
  readonly scope: Scope | null;
  readonly okStatus: number;
  readonly body?: string;
  /** Headers the route's own clients send (GraphQL's GET carries yoga's CSRF header). */
  readonly headers?: Readonly<Record<string, string>>;
}

const gql = (query: string) => JSON.stringify({ query });

/** Every front end's routes, one of each kind of right. */
export const ROUTES: readonly Route[] = [
  { api: 'graphql', method: 'POST', path: '/graphql', scope: 'read', okStatus: 200, body: gql('{ metricNames }') },
  {
    api: 'graphql',
    method: 'GET',
    path: `/graphql?query=${encodeURIComponent('{ metricNames }')}`,
    scope: 'read',
    okStatus: 200,
    headers: { 'x-graphql-yoga-csrf': '1' },
  },
  {
    api: 'graphql',
    method: 'POST',
    path: '/graphql',
    scope: 'write',
    okStatus: 200,
    body: gql(
      'mutation { addPoints(series: [{ metric: "sec.written", tags: [{ name: "h", value: "a" }], points: [{ time: 1000, value: 1 }] }]) { points } }',
    ),
  },
  {
    api: 'graphql',
    method: 'POST',
    path: '/graphql',
    scope: 'delete',
    okStatus: 200,
    body: gql('mutation { deletePoints(metric: "sec.doomed", from: 0, to: 9999999999999) { series } }'),
  },
  { api: 'rest', method: 'GET', path: '/api/v1/version', scope: null, okStatus: 200 },
  { api: 'rest', method: 'GET', path: '/api/v1/metricnames', scope: 'read', okStatus: 200 },
  {
    api: 'rest',
    method: 'POST',
    path: '/api/v1/datapoints/query',
    scope: 'read',
    okStatus: 200,
    body: JSON.stringify({ start_absolute: 0, metrics: [{ name: 'sec.kept' }] }),
  },
  {
    api: 'rest',
    method: 'POST',
    path: '/api/v1/datapoints',
    scope: 'write',
    okStatus: 204,
    body: JSON.stringify([{ name: 'sec.written', tags: { h: 'a' }, datapoints: [[1000, 1]] }]),
  },
  {
    api: 'rest',
    method: 'POST',
    path: '/api/v1/datapoints/delete',
    scope: 'delete',
    okStatus: 204,
    body: JSON.stringify({ start_absolute: 0, metrics: [{ name: 'sec.doomed' }] }),
  },
  { api: 'rest', method: 'DELETE', path: '/api/v1/metric/sec.doomed', scope: 'delete', okStatus: 204 },
  { api: 'prometheus', method: 'GET', path: '/prometheus/kairosdb/api/v1/query?query=1', scope: 'read', okStatus: 200 },
  {
    api: 'prometheus',
    method: 'POST',
    path: '/prometheus/kairosdb/api/v1/query_range?query=sec_kept&start=0&end=10&step=1',
    scope: 'read',
    okStatus: 200,
    body: 'query=1&start=0&end=10&step=1',
  },
  {
    api: 'prometheus',
    method: 'GET',
    path: '/prometheus/kairosdb/api/v1/label/h/values',
    scope: 'read',
    okStatus: 200,
  },
  {
    api: 'prometheus',
    method: 'GET',
    path: '/prometheus/kairosdb/api/v1/status/buildinfo',
    scope: 'read',
    okStatus: 200,
  },
  { api: 'operations', method: 'GET', path: '/metrics', scope: 'admin', okStatus: 200 },
  { api: 'operations', method: 'GET', path: '/health', scope: null, okStatus: 200 },
];

export interface Principal {
  readonly headers: Readonly<Record<string, string>>;
  /** Its scopes; absent for requests without credentials, which get the gateway's anonymous scopes. */
  readonly scopes?: readonly Scope[];
  /** Credentials that are wrong: refused on every scoped route. */
  readonly wrong?: boolean;
}

/**
 * The same path written so that a parser that normalises it reads the canonical one: dot segments, their escapes,
 * repeated and trailing slashes, backslashes, an escaped letter. Each must be answered as the canonical path is.
 */
export const PATH_FORMS: Readonly<Record<string, (path: string) => string>> = {
  canonical: (p) => p,
  'dot segment': (p) => `/.${p}`,
  'escaped dot segment': (p) => `/%2e${p}`,
  'escaped dot-dot': (p) => `/x/%2E%2E${p}`,
  'parent of a segment': (p) => `/x/..${p}`,
  'parent of /graphql': (p) => `/graphql/..${p}`,
  'double slash': (p) => `/${p}`,
  'trailing slash': (p) => withPath(p, (path) => `${path}/`),
  backslashes: (p) =>
    `/x\\..${p.replaceAll('/', '\\').replace(/\?.*/, '')}${p.includes('?') ? p.slice(p.indexOf('?')) : ''}`,
  'escaped letter': (p) => withPath(p, (path) => path.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`)),
};

/** Forms that name another path: answered 404, never with the canonical path's answer. */
export const OTHER_PATHS: Readonly<Record<string, (path: string) => string>> = {
  'upper case': (p) => withPath(p, (path) => path.toUpperCase()),
  // One segment `x%2F..%2Fgraphql`: only a parser that decodes escaped slashes reads `/x/../graphql` in it.
  'escaped slashes': (p) => `/x%2F..%2F${p.slice(1)}`,
};

export const ORIGINS = {
  none: undefined,
  same: 'SELF',
  allowed: 'http://allowed.example:3000',
  foreign: 'http://evil.example',
  null: 'null',
} as const;

export const CONTENT_TYPES = {
  json: 'application/json',
  'text/plain': 'text/plain;charset=UTF-8',
  form: 'application/x-www-form-urlencoded',
  multipart: 'multipart/form-data; boundary=x',
  none: undefined,
} as const;

export const HOSTS = {
  own: 'SELF',
  localhost: 'localhost:PORT',
  'rebound name': 'evil.example:PORT',
} as const;

export interface Request {
  readonly route: Route;
  readonly principal: Principal;
  readonly target: string;
  readonly origin: string | undefined;
  readonly contentType: string | undefined;
  readonly host: string;
}

export interface Answer {
  readonly status: number;
  /** GraphQL's and the operations endpoints' `extensions.code`; REST answers KairosDB's `{"errors": [message]}`. */
  readonly code?: string;
}

/** What the rules say a request gets; `anonymous` are the gateway's scopes for requests without credentials. */
export function expected(req: Request, anonymous: readonly Scope[]): Answer {
  const graphqlLike = req.route.api !== 'rest' && req.route.api !== 'prometheus';
  const refuse = (status: number, code: string): Answer => (graphqlLike ? { status, code } : { status });
  if (!req.target.startsWith('/')) return graphqlLike ? { status: 400, code: 'BAD_USER_INPUT' } : { status: 400 };
  if (req.host.startsWith('evil.example')) return refuse(403, 'HOST_NOT_ALLOWED');
  if (req.origin !== undefined && req.origin !== 'SELF' && req.origin !== ORIGINS.allowed)
    return refuse(403, 'ORIGIN_NOT_ALLOWED');
  const simple = req.contentType === undefined || !req.contentType.startsWith('application/json');
  const preflighted =
    Object.keys(req.route.headers ?? {}).some((name) => name === 'x-graphql-yoga-csrf') ||
    'x-kairograph-token' in req.principal.headers;
  // Prometheus's API reads forms (its protocol) and only reads; the Origin rule above still holds for browsers.
  if (req.route.method === 'POST' && simple && !preflighted && req.route.api !== 'prometheus')
    return refuse(403, 'CSRF_PREVENTED');
  if (req.route.scope === null) return { status: req.route.okStatus };
  if (req.principal.wrong) return refuse(401, 'UNAUTHENTICATED');
  const scopes = req.principal.scopes ?? anonymous;
  if (!scopes.includes(req.route.scope))
    return refuse(
      req.principal.scopes === undefined ? 401 : 403,
      req.principal.scopes === undefined ? 'UNAUTHENTICATED' : 'FORBIDDEN',
    );
  return { status: req.route.okStatus };
}

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/** Sends the request as written: its target byte for byte, its own Host header. */
export function send(baseUrl: string, req: Request): Promise<Answer> {
  const { hostname, port, host: self } = new URL(baseUrl);
  const headers: Record<string, string> = {
    ...req.route.headers,
    ...req.principal.headers,
    host: req.host.replace('SELF', self).replace('PORT', port),
  };
  // A page of the gateway itself, by whatever name the browser loaded it.
  if (req.origin !== undefined) headers['origin'] = req.origin === 'SELF' ? `http://${headers['host']}` : req.origin;
  if (req.contentType !== undefined) headers['content-type'] = req.contentType;
  return new Promise((resolve, reject) => {
    const call = request(
      { host: hostname, port, method: req.route.method, path: req.target, headers, agent, setHost: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode!;
          if (status < 400 || req.route.api === 'rest' || text === '') return resolve({ status });
          // Prometheus's error body, whatever refused the request: the edge or the front end. A target that is no
          // path, or a path that only looks like the route's, is not the route's: GraphQL's body answers it.
          if (req.route.api === 'prometheus') {
            if (!req.target.startsWith('/') || status === 404) return resolve({ status });
            const body = JSON.parse(text) as { status?: string; errorType?: string };
            if (body.status !== 'error' || typeof body.errorType !== 'string')
              reject(
                new Error(
                  `${req.route.method} ${req.target} answered ${status} without Prometheus's error body: ${text}`,
                ),
              );
            return resolve({ status });
          }
          try {
            const code = (JSON.parse(text) as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions
              ?.code;
            resolve({ status, ...(code !== undefined ? { code } : {}) });
          } catch {
            reject(
              new Error(
                `${req.route.method} ${req.target} answered ${status} with a body that is not JSON: ${text.slice(0, 200)}`,
              ),
            );
          }
        });
        res.on('error', reject);
      },
    );
    call.on('error', reject);
    call.end(req.route.body);
  });
}

function withPath(target: string, change: (path: string) => string): string {
  const at = target.indexOf('?');
  return at < 0 ? change(target) : change(target.slice(0, at)) + target.slice(at);
}
