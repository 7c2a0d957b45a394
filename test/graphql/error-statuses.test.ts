/**
 * Every source of a GraphQL error, over real HTTP: each error carries an `extensions.code` and the HTTP status of the
 * table in docs/graphql.md, the same for legacy `Accept: application/json` clients (Grafana) and GraphQL-over-HTTP's
 * own type; and the server's deadline for receiving a request, on GraphQL and REST routes.
 */
import { connect } from 'node:net';
import { request } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/model/errors.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { faultyStore, type Faults } from '../support/store-wrappers.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

let inner: EmbeddedStore;
let gw: TestGateway | undefined;

beforeAll(async () => {
  inner = await EmbeddedStore.open({ path: tempDir() });
  const timestamps = Array.from({ length: 20 }, (_, i) => 1_000_000 + i * 1000);
  await inner.write({
    series: [
      {
        metric: 'cpu',
        tags: { host: 'a' },
        type: 'double',
        ttlSeconds: 0,
        timestamps,
        values: timestamps.map((t) => t / 1000),
      },
    ],
  });
});
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});
afterAll(async () => {
  await inner.close();
  removeTempDirs();
});

async function gateway(
  env: Record<string, string> = {},
  faults: Faults = {},
  logLines?: string[],
): Promise<TestGateway> {
  gw = await startGateway(faultyStore(inner, faults), env, logLines ? { logLines } : {});
  return gw;
}

const ACCEPTS = ['application/json', 'application/graphql-response+json'] as const;

interface Answer {
  readonly status: number;
  readonly allow: string | null;
  /** The body without its `extensions` (request statistics). */
  readonly body: unknown;
}

async function send(g: TestGateway, accept: string, init: RequestInit & { path?: string }): Promise<Answer> {
  const headers = new Headers(init.headers);
  headers.set('accept', accept);
  const response = await fetch(`${g.url}${init.path ?? '/graphql'}`, { ...init, headers });
  const text = await response.text();
  const { extensions: _, ...body } = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
  return { status: response.status, allow: response.headers.get('allow'), body };
}

const json = (payload: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof payload === 'string' ? payload : JSON.stringify(payload),
});
const query = (text: string, variables?: Record<string, unknown>) =>
  json({ query: text, ...(variables ? { variables } : {}) });
const csrf = { 'x-graphql-yoga-csrf': '1' };
const CSRF_HINT =
  "a POST must send Content-Type: application/json (curl: -H 'Content-Type: application/json'), and a GET the header x-graphql-yoga-csrf: 1; other requests could be a cross-site form";
const error = (message: string, code: string, more: Record<string, unknown> = {}) => ({
  message,
  ...more,
  extensions: { code, ...((more['extensions'] as object) ?? {}) },
});
const at = (line: number, column: number) => ({ locations: [{ line, column }] });

interface Case {
  readonly env?: Record<string, string>;
  readonly faults?: Faults;
  readonly request: RequestInit & { path?: string };
  readonly status: number;
  readonly body: unknown;
  readonly allow?: string;
}

const CASES: Record<string, Case> = {
  // The request itself, refused by yoga's request parser and method checks.
  'a body that is not JSON': {
    request: json('{"query": '),
    status: 400,
    body: {
      errors: [
        {
          message: 'POST body sent invalid JSON.',
          extensions: {
            code: 'BAD_REQUEST',
            originalError: { name: 'SyntaxError', message: expect.stringContaining('JSON') },
          },
        },
      ],
    },
  },
  'a JSON body that is not an object': {
    request: json('"{ metricNames }"'),
    status: 400,
    body: { errors: [error('POST body is expected to be object but received string', 'BAD_REQUEST')] },
  },
  'a batch of operations': {
    request: json([{ query: '{ metricNames }' }]),
    status: 400,
    body: { errors: [error('Batching is not supported.', 'BAD_REQUEST')] },
  },
  // Yoga adds its Allow header to this refusal too.
  'a query that is not a string': {
    request: json({ query: 1 }),
    status: 400,
    allow: 'GET, POST',
    body: { errors: [error('Expected "query" param to be a string, but given number.', 'BAD_REQUEST')] },
  },
  'an unknown request parameter': {
    request: json({ query: '{ metricNames }', queryy: 1 }),
    status: 400,
    body: { errors: [error('Unexpected parameter "queryy" in the request body.', 'BAD_REQUEST')] },
  },
  'no query and no persisted hash': {
    request: json({ variables: {} }),
    status: 400,
    body: {
      errors: [
        error(
          'the request has no query: send the query text, or a persisted operation as extensions.persistedQuery.sha256Hash (with version 1)',
          'PERSISTED_QUERY_ID_REQUIRED',
        ),
      ],
    },
  },
  'a method other than GET and POST': {
    request: { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' },
    status: 405,
    allow: 'GET, POST',
    body: { errors: [error('GraphQL only supports GET and POST requests.', 'BAD_REQUEST')] },
  },
  'a mutation over GET': {
    request: {
      path: `/graphql?query=${encodeURIComponent('mutation { deletePoints(metric: "cpu", from: 0, to: 1) { series } }')}`,
      headers: csrf,
    },
    status: 405,
    allow: 'POST',
    body: { errors: [error('Can only perform a mutation operation from a POST request.', 'BAD_REQUEST')] },
  },
  'a media type GraphQL does not take': {
    request: { method: 'POST', headers: { 'content-type': 'application/xml', ...csrf }, body: '<query/>' },
    status: 415,
    body: {
      errors: [
        error(
          'a GraphQL POST must be application/json (or application/graphql+json, application/graphql, application/x-www-form-urlencoded); got "application/xml"',
          'UNSUPPORTED_MEDIA_TYPE',
        ),
      ],
    },
  },
  'a multipart upload (the schema takes no files)': {
    request: { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x', ...csrf }, body: '--x--' },
    status: 415,
    body: {
      errors: [
        error(
          'a GraphQL POST must be application/json (or application/graphql+json, application/graphql, application/x-www-form-urlencoded); got "multipart/form-data; boundary=x"',
          'UNSUPPORTED_MEDIA_TYPE',
        ),
      ],
    },
  },
  'a text/plain POST without the CSRF header': {
    request: { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"query": "{ metricNames }"}' },
    status: 403,
    body: { errors: [error(`Required CSRF header(s) not present: ${CSRF_HINT}`, 'CSRF_PREVENTED')] },
  },
  'a plain curl -d (a form POST)': {
    request: {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '{"query": "{ metricNames }"}',
    },
    status: 403,
    body: { errors: [error(`Required CSRF header(s) not present: ${CSRF_HINT}`, 'CSRF_PREVENTED')] },
  },
  'a GET without the CSRF header': {
    request: { path: `/graphql?query=${encodeURIComponent('{ metricNames }')}` },
    status: 403,
    body: { errors: [error(`Required CSRF header(s) not present: ${CSRF_HINT}`, 'CSRF_PREVENTED')] },
  },
  // Persisted operations.
  'query text under PERSISTED_ONLY': {
    env: { PERSISTED_ONLY: 'true' },
    request: query('{ metricNames }'),
    status: 403,
    body: {
      errors: [
        error(
          'this gateway accepts only persisted operations (extensions.persistedQuery.sha256Hash); full query text needs credentials (Authorization: Bearer or Basic, or x-kairograph-token)',
          'PERSISTED_QUERY_ONLY',
        ),
      ],
    },
  },
  'an unknown persisted hash': {
    request: json({ extensions: { persistedQuery: { version: 1, sha256Hash: 'cd'.repeat(32) } } }),
    status: 404,
    body: {
      errors: [
        error('PersistedQueryNotFound', 'PERSISTED_QUERY_NOT_FOUND', {
          extensions: {
            hash: 'cd'.repeat(32),
            hint: 'no persisted operation has this hash: send the query text with it to register it, or run `npm run codegen` and deploy the manifest',
          },
        }),
      ],
    },
  },
  // The document: parsing, graphql-armor's limits, validation, choosing the operation.
  'a syntax error': {
    request: query('{ metricNames'),
    status: 400,
    body: { errors: [error('Syntax Error: Expected Name, found <EOF>.', 'GRAPHQL_PARSE_FAILED', at(1, 14))] },
  },
  'a document over GRAPHQL_MAX_TOKENS': {
    env: { GRAPHQL_MAX_TOKENS: '10' },
    request: query('{ series(metric: "m", from: 0) { name metric } }'),
    status: 400,
    body: { errors: [error('Syntax Error: Token limit of 10 exceeded. (GRAPHQL_MAX_TOKENS)', 'QUERY_TOO_COMPLEX')] },
  },
  'an operation over GRAPHQL_MAX_DEPTH': {
    env: { GRAPHQL_MAX_DEPTH: '2' },
    request: query('{ series(metric: "m", from: 0) { points { value } } }'),
    status: 400,
    body: {
      errors: [
        error('Syntax Error: Query depth limit of 2 exceeded, found 3. (GRAPHQL_MAX_DEPTH)', 'QUERY_TOO_COMPLEX'),
      ],
    },
  },
  'an unknown field': {
    request: query('{ metricNamez }'),
    status: 400,
    body: {
      errors: [
        error(
          'Cannot query field "metricNamez" on type "Query". Did you mean "metricNames" or "metricNamesPage"?',
          'GRAPHQL_VALIDATION_FAILED',
          at(1, 3),
        ),
      ],
    },
  },
  'a literal of the wrong type': {
    request: query('{ metricNames(limit: "x") }'),
    status: 400,
    body: { errors: [error('Int cannot represent non-integer value: "x"', 'GRAPHQL_VALIDATION_FAILED', at(1, 22))] },
  },
  'an unknown argument': {
    request: query('{ metricNames(limitt: 1) }'),
    status: 400,
    body: {
      errors: [
        error(
          'Unknown argument "limitt" on field "Query.metricNames". Did you mean "limit"?',
          'GRAPHQL_VALIDATION_FAILED',
          at(1, 15),
        ),
      ],
    },
  },
  'a missing required argument': {
    request: query('{ points(from: 0) { name } }'),
    status: 400,
    body: {
      errors: [
        error(
          'Field "points" argument "metric" of type "String!" is required, but it was not provided.',
          'GRAPHQL_VALIDATION_FAILED',
          at(1, 3),
        ),
      ],
    },
  },
  'two aggregators in one AggregatorInput': {
    request: query('{ series(metric: "m", from: 0, aggregators: [{ sum: {}, max: {} }]) { name } }'),
    status: 400,
    body: {
      errors: [
        error(
          'OneOf Input Object "AggregatorInput" must specify exactly one key.',
          'GRAPHQL_VALIDATION_FAILED',
          at(1, 46),
        ),
      ],
    },
  },
  'a subscription of a field that is not one': {
    request: query('subscription { metricNames }'),
    status: 400,
    body: {
      errors: [
        error('Cannot query field "metricNames" on type "Subscription".', 'GRAPHQL_VALIDATION_FAILED', at(1, 16)),
      ],
    },
  },
  'introspection when GRAPHQL_INTROSPECTION is off': {
    env: { GRAPHQL_INTROSPECTION: 'false' },
    request: query('{ __schema { queryType { name } } }'),
    status: 400,
    body: {
      errors: [
        error(
          'GraphQL introspection has been disabled, but the requested query contained the field "__schema".',
          'GRAPHQL_VALIDATION_FAILED',
          at(1, 3),
        ),
        error(
          'GraphQL introspection has been disabled, but the requested query contained the field "queryType".',
          'GRAPHQL_VALIDATION_FAILED',
          at(1, 14),
        ),
      ],
    },
  },
  'several operations and no operationName': {
    request: query('query A { metricNames } query B { metricNames }'),
    status: 400,
    body: { errors: [error('Could not determine what operation to execute.', 'OPERATION_RESOLUTION_FAILURE')] },
  },
  'an operationName the document lacks': {
    request: json({ query: 'query A { metricNames }', operationName: 'B' }),
    status: 400,
    body: { errors: [error('Could not determine what operation to execute.', 'OPERATION_RESOLUTION_FAILURE')] },
  },
  // Variables graphql-js cannot coerce: the client's input, before execution.
  'a Time variable given a boolean': {
    request: query('query ($from: Time!) { points(metric: "cpu", from: $from) { name } }', { from: true }),
    status: 400,
    body: {
      errors: [
        error(
          'Variable "$from" got invalid value true; Time must be epoch milliseconds (a number or numeric string), ISO-8601 text or a relative time such as now-6h',
          'BAD_USER_INPUT',
          at(1, 8),
        ),
      ],
    },
  },
  'an Int variable given text': {
    request: query('query ($limit: Int) { metricNames(limit: $limit) }', { limit: 'x' }),
    status: 400,
    body: {
      errors: [
        error(
          'Variable "$limit" got invalid value "x"; Int cannot represent non-integer value: "x"',
          'BAD_USER_INPUT',
          at(1, 8),
        ),
      ],
    },
  },
  'a missing required variable': {
    request: query('query ($from: Time!) { points(metric: "cpu", from: $from) { name } }'),
    status: 400,
    body: {
      errors: [error('Variable "$from" of required type "Time!" was not provided.', 'BAD_USER_INPUT', at(1, 8))],
    },
  },
  'null for a non-null variable': {
    request: query('query ($metric: String!) { points(metric: $metric, from: 0) { name } }', { metric: null }),
    status: 400,
    body: {
      errors: [error('Variable "$metric" of non-null type "String!" must not be null.', 'BAD_USER_INPUT', at(1, 8))],
    },
  },
  // Execution: Kairograph's typed errors, and anything else masked.
  'an argument the resolvers refuse': {
    request: query('{ series(metric: "cpu", from: 0, timeZone: "Mars/Olympus") { name } }'),
    status: 400,
    body: {
      data: null,
      errors: [
        error(
          'timeZone must be an IANA time zone such as Europe/Berlin, or an offset such as +05:30 (got "Mars/Olympus")',
          'BAD_USER_INPUT',
          {
            ...at(1, 3),
            path: ['series'],
            extensions: { field: 'timeZone' },
          },
        ),
      ],
    },
  },
  'a query over its budget': {
    env: { MAX_QUERY_POINTS: '5' },
    request: query('{ points(metric: "cpu", from: 0) { name } }'),
    status: 422,
    body: {
      data: null,
      errors: [
        error('query exceeded its points returned budget of 5 (MAX_QUERY_POINTS)', 'BUDGET_EXCEEDED', {
          ...at(1, 3),
          path: ['points'],
        }),
      ],
    },
  },
  'an answer over MAX_RESPONSE_BYTES': {
    env: { MAX_RESPONSE_BYTES: '1024' },
    request: query('{ points(metric: "cpu", from: 0) { points { time epochMs value } } }'),
    status: 422,
    body: {
      data: null,
      errors: [error('request exceeded its answer bytes budget of 1024 (MAX_RESPONSE_BYTES)', 'BUDGET_EXCEEDED')],
    },
  },
  'a request past QUERY_TIMEOUT_MS': {
    env: { QUERY_TIMEOUT_MS: '100' },
    faults: { pageDelayMs: 60_000 },
    request: query('{ points(metric: "cpu", from: 0) { name } }'),
    status: 504,
    body: {
      data: null,
      errors: [error('query exceeded its time limit of 100 ms', 'QUERY_TIMEOUT', { ...at(1, 3), path: ['points'] })],
    },
  },
  'a store that cannot be reached': {
    faults: { scanError: new StoreUnavailableError('embedded', new Error('no such file')) },
    request: query('{ points(metric: "cpu", from: 0) { name } }'),
    status: 503,
    body: {
      data: null,
      errors: [
        error('the embedded store is unavailable: no such file', 'STORE_UNAVAILABLE', {
          ...at(1, 3),
          path: ['points'],
        }),
      ],
    },
  },
  'an unexpected failure': {
    faults: { scanError: new Error('disk on fire at sector 7') },
    request: query('{ points(metric: "cpu", from: 0) { name } }'),
    status: 500,
    body: {
      data: null,
      errors: [error('Unexpected error.', 'INTERNAL_SERVER_ERROR', { ...at(1, 3), path: ['points'] })],
    },
  },
};

describe('every GraphQL error has a code and its documented status, whatever the Accept header', () => {
  it.each(Object.entries(CASES))('%s', async (_, c) => {
    const g = await gateway(c.env, c.faults);
    for (const accept of ACCEPTS) {
      const answer = await send(g, accept, c.request);
      expect(answer, accept).toEqual({ status: c.status, allow: c.allow ?? null, body: c.body });
    }
  });

  it('answers a client that accepts no JSON with 406 and an empty body: it could not read an error', async () => {
    const g = await gateway();
    expect(await send(g, 'application/xml', query('{ metricNames }'))).toEqual({ status: 406, allow: null, body: {} });
  });

  it('refuses a body over the GraphQL limit by its declared length, before reading it', async () => {
    const g = await gateway();
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        `${g.url}/graphql`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(25_000_001) } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => {
            req.destroy();
            resolve({ status: res.statusCode!, text });
          });
        },
      );
      req.on('error', reject);
      req.write('{"query": "');
    });
    expect(answer).toEqual({
      status: 413,
      text: JSON.stringify({ errors: [error('Request body too large', 'REQUEST_ENTITY_TOO_LARGE')] }),
    });
  });
});

describe('the deadline for receiving a request', () => {
  /** Sends headers and the start of a body, then a byte every 50 ms, never finishing and never closing itself. */
  function slowUpload(url: string, path: string): Promise<{ text: string; ms: number }> {
    const { hostname, port } = new URL(url);
    const started = Date.now();
    return new Promise((resolve, reject) => {
      // allowHalfOpen: the client does not close when the server does; only the server can end the connection.
      const socket = connect({ host: hostname, port: Number(port), allowHalfOpen: true });
      let text = '';
      const drip = setInterval(() => {
        if (socket.writable) socket.write(' ');
      }, 50);
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('error', () => {});
      socket.on('close', () => {
        clearInterval(drip);
        resolve({ text, ms: Date.now() - started });
      });
      socket.on('connect', () =>
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"query": "`,
        ),
      );
      setTimeout(() => reject(new Error(`the server kept the socket: ${JSON.stringify(text)}`)), 10_000).unref();
    });
  }

  it('answers a GraphQL upload still arriving at QUERY_TIMEOUT_MS with 408 REQUEST_TIMEOUT, then releases the socket', async () => {
    const lines: string[] = [];
    const g = await gateway({ QUERY_TIMEOUT_MS: '300' }, {}, lines);
    const { text, ms } = await slowUpload(g.url, '/graphql');
    const body = JSON.stringify({
      errors: [
        error('the request was not received within its time limit of 300 ms (QUERY_TIMEOUT_MS)', 'REQUEST_TIMEOUT'),
      ],
    });
    expect(text).toBe(
      `HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    // The deadline plus Node's check interval (30 ms here) plus the 2 s the client gets to read its 408.
    expect(ms).toBeGreaterThanOrEqual(300);
    expect(ms).toBeLessThan(4000);
    // What yoga does with the body it was still waiting for is nobody's business: nothing is logged as an error.
    expect(lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50)).toEqual([]);
  });

  it("answers a REST upload the same way, in KairosDB's error format, and releases the socket", async () => {
    const g = await gateway({ QUERY_TIMEOUT_MS: '300' });
    const { text, ms } = await slowUpload(g.url, '/api/v1/datapoints');
    // The REST handler's own time limit and the server's deadline race; both answer this, so either may.
    const [head, body] = text.split('\r\n\r\n');
    expect(head!.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    expect(head!.toLowerCase().split('\r\n')).toEqual(
      expect.arrayContaining(['connection: close', 'pragma: no-cache']),
    );
    expect(body).toBe('{"errors":["the request was not received within its time limit of 300 ms (QUERY_TIMEOUT_MS)"]}');
    expect(ms).toBeLessThan(4000);
  });

  it('holds headers that never end to the same deadline', async () => {
    const g = await gateway({ QUERY_TIMEOUT_MS: '300' });
    const { hostname, port } = new URL(g.url);
    const text = await new Promise<string>((resolve) => {
      const socket = connect({ host: hostname, port: Number(port) });
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (received += chunk));
      socket.on('error', () => {});
      socket.on('close', () => resolve(received));
      socket.on('connect', () => socket.write(`GET /graphql HTTP/1.1\r\nHost: ${hostname}\r\n`));
    });
    const body = JSON.stringify({
      errors: [
        error('the request was not received within its time limit of 300 ms (QUERY_TIMEOUT_MS)', 'REQUEST_TIMEOUT'),
      ],
    });
    expect(text).toBe(
      `HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
  });

  it('keeps answering other client errors as Node does', async () => {
    const g = await gateway();
    const { hostname, port } = new URL(g.url);
    const text = await new Promise<string>((resolve) => {
      const socket = connect({ host: hostname, port: Number(port) });
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (received += chunk));
      socket.on('error', () => {});
      socket.on('close', () => resolve(received));
      socket.on('connect', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
    });
    expect(text).toBe('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });

  it('leaves idle keep-alive connections alone: the deadline runs from the start of each request', async () => {
    const g = await gateway({ QUERY_TIMEOUT_MS: '300' });
    const { hostname, port } = new URL(g.url);
    const socket = connect({ host: hostname, port: Number(port) });
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    const health = `GET /health HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`;
    const answers = async (n: number) => {
      while ((received.match(/HTTP\/1\.1 200 OK/g) ?? []).length < n)
        await new Promise((resolve) => setTimeout(resolve, 10));
    };
    await new Promise<void>((resolve) => socket.on('connect', resolve));
    socket.write(health);
    await answers(1);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(socket.destroyed).toBe(false);
    socket.write(health);
    await answers(2);
    socket.destroy();
  });
});
