/**
 * What an endpoint of Prometheus's API is here (a handler from a call to a reply, and the scope it needs), what it is
 * given (the source its path names, the parameters of its URL and form merged as Go's ParseForm merges them), and the
 * `data` of a success answered in Prometheus's envelope.
 */
import type { IncomingMessage } from 'node:http';
import type { RequestScope, RequestScopes } from '../app/request-scope.js';
import type { AnswerWriter } from '../http/answer-writer.js';
import type { Authenticator } from '../http/auth.js';
import type { AnswerEncoding } from '../http/compression.js';
import type { HttpEdge } from '../http/edge.js';
import { readBody } from '../http/read-body.js';
import type { RequestObserver } from '../http/request-observer.js';
import type { Logger } from '../lib/log.js';
import type { Scope } from '../model/principal.js';
import type { Source } from '../sources/source.js';
import type { Sources } from '../sources/sources.js';

interface PrometheusSettings {
  /** REST_MAX_BODY_BYTES: the largest form body, as for the REST API. */
  readonly maxBodyBytes: number;
  /** COMPRESSION and COMPRESSION_MIN_BYTES. */
  readonly compression: { readonly enabled: boolean; readonly minBytes: number };
}

export interface PrometheusDeps {
  readonly sources: Sources;
  readonly settings: PrometheusSettings;
  readonly log: Logger;
  readonly scopes: RequestScopes;
  readonly auth: Authenticator;
  readonly edge: HttpEdge;
  readonly observer?: RequestObserver;
}

/** One request to an endpoint, once it is routed, allowed, and its scope is open. */
export interface Call {
  readonly req: IncomingMessage;
  readonly ctx: RequestScope;
  readonly deps: PrometheusDeps;
  /** The source the path names. */
  readonly source: Source;
  /** The route's other path parameters, still percent-encoded. */
  readonly path: Readonly<Record<string, string | undefined>>;
  /** The query string's parameters; `form` merges the body's in for the endpoints that take POST. */
  readonly query: URLSearchParams;
  readonly encoding: AnswerEncoding | undefined;
}

/** What a handler answers: the success's `data`, and `warnings` and `infos` beside it. */
export interface Reply {
  /** A value to write as JSON, or a writer of its JSON text (query results, written piece by piece and counted). */
  readonly data: { readonly value: unknown } | { readonly write: (out: AnswerWriter) => Promise<void> };
  readonly warnings?: readonly string[];
  readonly infos?: readonly string[];
}

type Handler = (call: Call) => Promise<Reply>;

/** A handler and the scope it needs (every endpoint reads). */
export type Endpoint = readonly [Handler, Scope];

export type Method = 'GET' | 'POST';

/** A path under /prometheus/<source>/api/v1 in find-my-way's syntax and the endpoint of each method it takes. */
export interface PromRoute {
  readonly path: string;
  readonly methods: Readonly<Partial<Record<Method, Endpoint>>>;
}

/**
 * The URL's parameters and, for a POST form, the body's, as Go's ParseForm gives them to Prometheus: the body's values
 * first, then the URL's. A body of any other type is not read, as ParseForm ignores it. Grafana's suggestions send a
 * POST with every parameter in the URL and an empty body.
 */
export async function formParams(call: Call): Promise<URLSearchParams> {
  if (call.req.method !== 'POST') return call.query;
  const type = call.req.headers['content-type'];
  const media = typeof type === 'string' ? type.split(';', 1)[0]!.trim().toLowerCase() : '';
  if (media !== 'application/x-www-form-urlencoded') return call.query;
  const body = (await readBody(call.req, call.deps.settings.maxBodyBytes, call.ctx.signal)).toString('utf8');
  const merged = new URLSearchParams(body);
  for (const [name, value] of call.query) merged.append(name, value);
  return merged;
}
