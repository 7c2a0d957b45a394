/**
 * What an endpoint of KairosDB's REST API is (a handler from a call to a reply, and the scope it needs), what it is
 * given, and how endpoints read their input: bodies, JSON text, path parameters, queries.
 */
import type { IncomingMessage } from 'node:http';
import type { RequestScope, RequestScopes } from '../app/request-scope.js';
import type { Answer } from '../http/answer-writer.js';
import type { Authenticator } from '../http/auth.js';
import type { AnswerEncoding } from '../http/compression.js';
import type { HttpEdge } from '../http/edge.js';
import type { RequestObserver } from '../http/request-observer.js';
import { parseCheckedKairosQuery } from '../kairos-json/check-query.js';
import { JsonSyntaxError, parseJson, type JsonValue } from '../kairos-json/json-text.js';
import type { Logger } from '../lib/log.js';
import { InputError, KairographError } from '../model/errors.js';
import type { Scope } from '../model/principal.js';
import type { MetricQuery } from '../model/query.js';
import type { RollupService } from '../rollups/rollup-service.js';
import type { Sources } from '../sources/sources.js';
import { readBody } from '../http/read-body.js';

/** What the REST API needs of the configuration besides what every request scope has. */
interface KairosRestSettings {
  /** REST_MAX_BODY_BYTES: the largest body, counted as received and again after gzip inflation. */
  readonly maxBodyBytes: number;
  /** REST_TAGS_ROW_PERIODS: the row periods `/datapoints/query/tags` reads. */
  readonly tagsRowPeriods: number;
  /** COMPRESSION and COMPRESSION_MIN_BYTES. */
  readonly compression: { readonly enabled: boolean; readonly minBytes: number };
}

export interface KairosRestDeps {
  /** The gateway's sources (REST serves the primary one). */
  readonly sources: Sources;
  readonly settings: KairosRestSettings;
  readonly log: Logger;
  /** Opens each request's scope (its budgets, turn, loaders and checks). */
  readonly scopes: RequestScopes;
  /** Who may do what (src/http/auth.ts). */
  readonly auth: Authenticator;
  /** Who a request is: its credentials, read once per request for every front end (src/http/edge.ts). */
  readonly edge: HttpEdge;
  /** The gateway's record of each request (its log line and metrics); without it requests go unlogged. */
  readonly observer?: RequestObserver;
  /** Roll-up tasks, shared with GraphQL. */
  readonly rollups: RollupService;
}

/** One request to an endpoint, once it is routed, allowed, and its scope is open. */
export interface Call {
  readonly req: IncomingMessage;
  readonly ctx: RequestScope;
  readonly deps: KairosRestDeps;
  /** The query string's parameters. */
  readonly params: URLSearchParams;
  /** The route's path parameters as sent, still percent-encoded (`pathParam` decodes one). */
  readonly path: Readonly<Record<string, string | undefined>>;
  /** How the client takes answers (Accept-Encoding and COMPRESSION): a query's answer is compressed as it is written. */
  readonly encoding: AnswerEncoding | undefined;
}

export interface Reply {
  readonly status: number;
  /** Short bodies as text; query answers as the AnswerWriter wrote them (counted, and compressed if they go so). */
  readonly body?: string | Answer;
  /** Headers besides the common ones (a body that is not JSON names its type). */
  readonly headers?: Readonly<Record<string, string>>;
}

export type Handler = (call: Call) => Promise<Reply>;

/** A handler and the scope it needs; `null` for KairosDB's version and health checks, which monitors call without credentials. */
export type Endpoint = readonly [Handler, Scope | null];

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A path under /api/v1 in find-my-way's syntax (`/metric/:name`) and the endpoint of each method it takes. */
export interface RestRoute {
  readonly path: string;
  readonly methods: Readonly<Partial<Record<Method, Endpoint>>>;
}

/** The parameter `name` of the route, percent-decoded; `field` names it in the error when it cannot be. */
export function pathParam({ path }: Call, name: string, field = name): string {
  const encoded = path[name]!;
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new InputError(field, encoded, 'is not valid percent-encoding');
  }
}

/** The request's queries, each validated as the engine will validate it (src/kairos-json/check-query.ts). */
export function checkedQueries(ctx: RequestScope, json: JsonValue): MetricQuery[] {
  return parseCheckedKairosQuery(json, ctx.nowMs, ctx.sources.primary.limits);
}

/** The body as text, within REST_MAX_BODY_BYTES and the request's time limit. */
export async function readText({ req, ctx, deps }: Call): Promise<string> {
  return (await readBody(req, deps.settings.maxBodyBytes, ctx.signal)).toString('utf8');
}

/** The body as JSON; `exactNumbers` keeps integers beyond 2^53 exact (points' values). */
export async function readJsonBody(call: Call, exactNumbers: boolean): Promise<JsonValue> {
  return parseJsonText(await readText(call), 'request body', exactNumbers);
}

export function parseJsonText(text: string, what: string, exactNumbers: boolean): JsonValue {
  try {
    // A byte order mark is not JSON, but some clients send one.
    return parseJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, { exactNumbers });
  } catch (error) {
    if (error instanceof JsonSyntaxError)
      throw new KairographError('BAD_USER_INPUT', `${what} is not valid JSON: ${error.message}`);
    throw error;
  }
}
