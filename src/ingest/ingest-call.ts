/** What the HTTP ingest endpoints are given: the gateway's parts they use, and one request once it may write. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestScope, RequestScopes } from '../app/request-scope.js';
import type { Authenticator } from '../http/auth.js';
import type { HttpEdge } from '../http/edge.js';
import { readBody } from '../http/read-body.js';
import type { RequestObserver } from '../http/request-observer.js';
import type { HeaderFields } from '../http/send-answer.js';
import type { Logger } from '../lib/log.js';
import type { Source } from '../sources/source.js';
import type { Sources } from '../sources/sources.js';
import type { IngestMetrics } from './ingest-metrics.js';

interface IngestSettings {
  /** REST_MAX_BODY_BYTES: the largest body as received, and again once inflated (gzip, snappy). */
  readonly maxBodyBytes: number;
  /** INFLUX_METRIC_SEPARATOR. */
  readonly influxMetricSeparator: string;
}

export interface IngestDeps {
  readonly sources: Sources;
  readonly settings: IngestSettings;
  readonly log: Logger;
  readonly scopes: RequestScopes;
  readonly auth: Authenticator;
  readonly edge: HttpEdge;
  readonly observer?: RequestObserver;
  readonly metrics: IngestMetrics;
}

/** One write request, routed, allowed on its source, its scope open. Endpoints answer on `res` themselves. */
export interface IngestCall {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly ctx: RequestScope;
  readonly deps: IngestDeps;
  readonly source: Source;
  readonly query: URLSearchParams;
  /** The header every answer carries (`x-request-id`). */
  readonly idHeader: HeaderFields;
}

/**
 * The body within REST_MAX_BODY_BYTES and the request's time limit; `inflate` false for a body whose compression
 * the endpoint undoes itself (remote write's snappy), true for HTTP's gzip and deflate.
 */
export function readIngestBody(call: IngestCall, inflate: boolean): Promise<Buffer> {
  return readBody(call.req, call.deps.settings.maxBodyBytes, call.ctx.signal, inflate);
}
