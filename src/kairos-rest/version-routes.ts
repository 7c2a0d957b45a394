/**
 * KairosDB's version and health checks, which monitors call without credentials: GET /version, /health/check and
 * /health/status.
 */
import { createRequire } from 'node:module';
import type { RequestScope } from '../app/request-scope.js';
import { KairographError } from '../model/errors.js';
import { restErrorBody, UNEXPECTED } from './rest-answers.js';
import type { Call, Reply, RestRoute } from './rest-endpoint.js';

/** What GET /api/v1/version answers: KairosDB's form first, since clients check that it starts with "KairosDB". */
const VERSION = `KairosDB 1.3.0-1 (Kairograph ${(createRequire(import.meta.url)('../../package.json') as { version: string }).version})`;

export const VERSION_ROUTES: readonly RestRoute[] = [
  { path: '/version', methods: { GET: [version, null] } },
  { path: '/health/check', methods: { GET: [healthCheck, null] } },
  { path: '/health/status', methods: { GET: [healthStatus, null] } },
];

async function version(): Promise<Reply> {
  return { status: 200, body: JSON.stringify({ version: VERSION }) };
}

/** KairosDB answers an unhealthy check with 500 whatever the cause; monitors expect exactly that. */
async function healthCheck({ ctx }: Call): Promise<Reply> {
  const failure = await pingFailure(ctx);
  return failure === undefined ? { status: 204 } : { status: 500, body: restErrorBody(failure) };
}

async function healthStatus({ ctx }: Call): Promise<Reply> {
  const failure = await pingFailure(ctx);
  return { status: 200, body: JSON.stringify([`Datastore-Query: ${failure === undefined ? 'OK' : 'FAIL'}`]) };
}

/** Undefined when the store answers; otherwise what the client may be told (a typed error's message, else masked). */
async function pingFailure(ctx: RequestScope): Promise<string | undefined> {
  try {
    await ctx.sources.primary.ping();
    return undefined;
  } catch (error) {
    if (error instanceof KairographError) return error.message;
    ctx.log.error({ err: error }, 'the store failed its health check');
    return UNEXPECTED;
  }
}
