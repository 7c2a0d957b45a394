/**
 * The edge every request crosses before a front end sees it, whichever front end that is: its target brought to the
 * canonical path that routes and scope checks match (canonical-path.ts), the browser rules (Host, Origin, CORS,
 * preflights: browser-policy.ts), the one authentication from headers, the client's points quota (quotas.ts), and its
 * refusals in the error body of the request's front end.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { KairographError } from '../model/errors.js';
import type { RequestObserver, Api } from './request-observer.js';
import { TOKEN_HEADER, type Authenticator, type Challenge, type PresentedCredentials, type Principal } from './auth.js';
import type { BrowserPolicy } from './browser-policy.js';
import { canonicalTarget } from './canonical-path.js';
import type { ReadQuota } from './quotas.js';
import { send, type HeaderFields } from './send-answer.js';

/** A request the edge let through: its canonical path (also its `req.url` now) and the front end's name. */
export interface Accepted {
  readonly path: string;
  readonly api: Api;
}

export interface EdgeDeps {
  readonly auth: Authenticator;
  readonly browser: BrowserPolicy;
  readonly readQuota: ReadQuota;
  readonly observer: RequestObserver;
  /** Which front end answers a canonical path, and the route template metrics and logs name it by. */
  readonly route: (path: string) => { readonly api: Api; readonly template: string };
  /** How each front end's clients read an error: the edge answers its refusals in the request's front end's body. */
  readonly errors: Readonly<Record<Api, ErrorFormat>>;
}

/**
 * How one front end's clients read an error, given by the front end itself (GraphQL's errors with extensions.code,
 * KairosDB's `{"errors": [...]}`), so the edge and the request deadline answer in it without knowing the front ends.
 */
export interface ErrorFormat {
  /** The JSON body that answers `error`. */
  body(error: KairographError): string;
  /**
   * Headers every answer of the front end carries (KairosDB's no-cache headers). The deadline's 408 carries them, as
   * it races the front end's own 408 for a body still arriving; the edge's refusals come before the front end's answers.
   */
  readonly headers: HeaderFields;
}

/** Who a request acts as, and the client its quotas count against. */
export interface Caller {
  readonly principal: Principal;
  /** The principal's name, or `anonymous@<address>` for a request without credentials. */
  readonly client: string;
}

export class HttpEdge {
  private readonly callers = new WeakMap<IncomingMessage, Promise<Caller>>();
  private readonly responses = new WeakMap<IncomingMessage, ServerResponse>();

  constructor(private readonly deps: EdgeDeps) {}

  /**
   * Lets a request through to its front end, or answers it: 400 for a target that is not a path, 403 for a Host or
   * an Origin the gateway does not serve, and CORS preflights. `req.url` is the canonical target afterwards.
   */
  accept(req: IncomingMessage, res: ServerResponse): Accepted | undefined {
    const target = canonicalTarget(req.url ?? '');
    if (target === undefined) {
      this.deps.observer.begin(req, res, 'other', 'other');
      this.refuse(
        req,
        res,
        'other',
        new KairographError('BAD_USER_INPUT', 'the request target must be a path starting with "/"'),
      );
      return undefined;
    }
    req.url = target;
    const path = target.split('?', 1)[0]!;
    const { api, template } = this.deps.route(path);
    this.deps.observer.begin(req, res, api, template);
    this.responses.set(req, res);
    const { host, origin } = req.headers;
    try {
      this.deps.browser.checkHost(host);
      const forwarded = req.headers['x-forwarded-host'];
      const cors = this.deps.browser.check(origin, host, typeof forwarded === 'string' ? forwarded : undefined);
      for (const [name, value] of Object.entries(cors)) res.setHeader(name, value);
      const preflight =
        req.method === 'OPTIONS' && origin !== undefined && req.headers['access-control-request-method'] !== undefined;
      if (preflight) {
        req.resume();
        send(res, 204, undefined, this.deps.browser.preflightHeaders(req.headers['access-control-request-headers']));
        return undefined;
      }
    } catch (error) {
      if (!(error instanceof KairographError)) throw error;
      this.refuse(req, res, api, error);
      return undefined;
    }
    return { path, api };
  }

  /**
   * Who the request acts as, from its headers (Authorization, x-kairograph-token), checked once per request however
   * many times a front end asks; what it reads is charged to its client's points when its response closes. Throws
   * UnauthenticatedError (offering `challenge`) for wrong credentials and RateLimitedError past the points quota.
   */
  caller(req: IncomingMessage, challenge: Challenge): Promise<Caller> {
    let caller = this.callers.get(req);
    if (caller === undefined) {
      caller = this.identify(req, challenge);
      this.callers.set(req, caller);
    }
    return caller;
  }

  /**
   * Whether a WebSocket upgrade accept() let through may carry the browser's credentials in its headers: not from an
   * origin let in only by CORS_ORIGINS=*, whose pages may call without them only (src/graphql/graphql-ws.ts).
   */
  ambientCredentials(req: IncomingMessage): boolean {
    const { host, origin } = req.headers;
    const forwarded = req.headers['x-forwarded-host'];
    const cors = this.deps.browser.check(origin, host, typeof forwarded === 'string' ? forwarded : undefined);
    return cors['access-control-allow-origin'] !== '*';
  }

  /**
   * Who a connection acts as, from credentials it presents other than in a request's headers (a WebSocket's
   * connection_init payload), with the same checks as caller(): UnauthenticatedError, RateLimitedError.
   */
  async callerOf(presented: PresentedCredentials, address: string): Promise<Caller> {
    const principal = await this.deps.auth.authenticate(presented, 'Bearer', address);
    const client = principal.authenticated ? principal.name : `${principal.name}@${address}`;
    this.deps.readQuota.check(client);
    return { principal, client };
  }

  /** Charges the points a request context read to `client` (what accept()'s requests are charged when they close). */
  charge(
    client: string,
    ctx: { readonly queries: readonly { readonly stats: { readonly pointsRead: number } }[] },
  ): void {
    this.deps.readQuota.charge(
      client,
      ctx.queries.reduce((sum, query) => sum + query.stats.pointsRead, 0),
    );
  }

  /** Answers `error` in the error body of the front end `api` (GraphQL's errors, or KairosDB's `{"errors": [...]}`). */
  refuse(req: IncomingMessage, res: ServerResponse, api: Api, error: KairographError): void {
    req.resume();
    this.deps.observer.exchange(req)?.errors.push(requestError(error));
    send(res, error.status, this.deps.errors[api].body(error), {
      ...error.headers,
      'content-type': 'application/json; charset=utf-8',
    });
  }

  private async identify(req: IncomingMessage, challenge: Challenge): Promise<Caller> {
    const token = req.headers[TOKEN_HEADER];
    const address = req.socket.remoteAddress ?? '';
    const principal = await this.deps.auth.authenticate(
      { authorization: req.headers.authorization, token: typeof token === 'string' ? token : undefined },
      challenge,
      address,
    );
    const client = principal.authenticated ? principal.name : `${principal.name}@${address}`;
    this.deps.readQuota.check(client);
    this.responses.get(req)?.once('close', () => {
      const ctx = this.deps.observer.exchange(req)?.ctx;
      if (ctx !== undefined)
        this.deps.readQuota.charge(
          client,
          ctx.queries.reduce((sum, query) => sum + query.stats.pointsRead, 0),
        );
    });
    return { principal, client };
  }
}

/** A typed error as the request's record keeps it: its code, message, and the quota it went over. */
export function requestError(error: KairographError): { code: string; message: string; quota?: string } {
  const quota = (error as { quota?: { policy: string } }).quota?.policy;
  return { code: error.code, message: error.message, ...(quota !== undefined ? { quota } : {}) };
}
