/**
 * Which endpoint answers a request under /api/v1: KairosDB's route templates matched by find-my-way (fastify's
 * router), and for a method a path does not take, what it does take (405 and OPTIONS answer with that Allow).
 */
import FindMyWay from 'find-my-way';
import type { Endpoint, RestRoute } from './rest-endpoint.js';

const API_PREFIX = '/api/v1';

/** How metrics and logs name a path under /api/v1 that no route matches: never the path itself. */
export const UNKNOWN_REST_ROUTE = `${API_PREFIX}/{unknown}`;

/** True for the paths the REST API answers; the gateway routes them to it. */
export function isKairosRestPath(url: string | undefined): boolean {
  return url?.startsWith(`${API_PREFIX}/`) === true;
}

/** A path that matched a route: the endpoint of the request's method, or none when the route does not take it. */
export interface RouteMatch {
  /** The route as metrics and logs name it (`/api/v1/metric/{name}`): never the client's own path. */
  readonly template: string;
  /** The methods the route takes, OPTIONS last, as an Allow header lists them. */
  readonly allow: string;
  readonly endpoint: Endpoint | undefined;
  /** The path's parameters as sent, still percent-encoded. */
  readonly params: Readonly<Record<string, string | undefined>>;
}

/** What find-my-way keeps for each route and method. */
interface Stored {
  readonly template: string;
  readonly allow: string;
  readonly endpoint: Endpoint | undefined;
}

export class RestRouter {
  private readonly router = FindMyWay({
    // A parameter is a metric name or a metadata key, as long as Node takes a request line (its header size bounds
    // it); past find-my-way's default of 100 characters a long name would be answered 404.
    maxParamLength: Number.MAX_SAFE_INTEGER,
  });

  constructor(routes: readonly RestRoute[]) {
    for (const route of routes) {
      const path = `${API_PREFIX}${route.path}`;
      const template = path.replace(/:(\w+)/g, '{$1}');
      const allow = [...Object.keys(route.methods), 'OPTIONS'].join(', ');
      for (const [method, endpoint] of Object.entries(route.methods))
        this.router.on(method as FindMyWay.HTTPMethod, path, unused, { template, allow, endpoint } satisfies Stored);
      // Every route takes OPTIONS, which says what it takes: a method it lacks finds the route through it.
      this.router.on('OPTIONS', path, unused, { template, allow, endpoint: undefined } satisfies Stored);
    }
  }

  /** The route of `method` on the canonical `path` (no query), or undefined when no route has the path. */
  match(method: string, path: string): RouteMatch | undefined {
    // find-my-way decodes parameters itself, and turns a path whose escapes do not decode into no match at all; REST
    // decodes them itself (pathParam), so the error names the parameter. An escaped `%` reaches the route as `%`.
    const literal = path.includes('%') ? path.replaceAll('%', '%25') : path;
    const found =
      this.router.find(method as FindMyWay.HTTPMethod, literal) ?? this.router.find('OPTIONS', literal) ?? undefined;
    if (found === undefined) return undefined;
    return { ...(found.store as Stored), params: found.params };
  }
}

/** find-my-way's handler, which `match` never calls: it reads the route's store instead. */
function unused(): void {}
