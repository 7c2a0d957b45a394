/**
 * OpenTelemetry traces over OTLP/HTTP, as a collector receives them (an HTTP receiver here decodes the exporter's
 * JSON): with OTEL_TRACES_EXPORTER=otlp, a GraphQL request continues the caller's `traceparent` and gives the tree
 * request → operation → a query per alias → plan, read and aggregate, with the index reads under the operation and
 * the answer's writing under the request; a REST request gives its own; a failed query is an error span. Off by
 * default: nothing is sent.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

interface Span {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: { key: string; value: Record<string, unknown> }[];
  readonly status?: { code?: number; message?: string };
}

let store: EmbeddedStore;
let receiver: Server;
const received: Span[] = [];
const ENV_NAMES = ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_BSP_SCHEDULE_DELAY'] as const;
const saved = Object.fromEntries(ENV_NAMES.map((name) => [name, process.env[name]]));

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const batch = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };
      for (const resource of batch.resourceSpans)
        for (const scope of resource.scopeSpans) received.push(...scope.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  // The SDK reads the standard variables from the process's environment, as it does in production.
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `http://127.0.0.1:${port}/v1/traces`;
  process.env.OTEL_BSP_SCHEDULE_DELAY = '10';
  store = await EmbeddedStore.open({ path: tempDir() });
  await store.write({
    series: ['a', 'b'].map((host, h) => ({
      metric: 'traced.load',
      tags: { host },
      type: 'long' as const,
      ttlSeconds: 0,
      timestamps: [1_000, 2_000, 3_000],
      values: [1 + h, 2 + h, 3 + h],
    })),
  });
});

afterAll(async () => {
  for (const name of ENV_NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  await new Promise((resolve) => receiver.close(resolve));
  await store?.close();
  removeTempDirs();
});

const attribute = (span: Span, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value === undefined ? undefined : Object.values(value)[0];
};

/** The spans of one trace as a tree of names, children sorted by name (they run concurrently). */
function tree(spans: readonly Span[], parent: string | undefined): unknown[] {
  return spans
    .filter((span) => (span.parentSpanId || undefined) === parent)
    .map((span) => {
      const children = tree(spans, span.spanId);
      return children.length === 0 ? span.name : { [span.name]: children };
    })
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

async function traced(run: (g: TestGateway) => Promise<void>, env: Record<string, string> = {}): Promise<Span[]> {
  const g = await startGateway(store, { OTEL_TRACES_EXPORTER: 'otlp', ...env });
  received.length = 0;
  try {
    await run(g);
  } finally {
    await g.close();
    await g.gateway.flushTraces();
  }
  return [...received];
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

describe('with OTEL_TRACES_EXPORTER=otlp', () => {
  it("continues the caller's trace: request, operation, a query per alias and its stages, index reads, the answer", async () => {
    const spans = await traced(async (g) => {
      const got = await g.graphql(
        `query Dashboard {
          a: series(metric: "traced.load", from: 0, to: 10000, where: [{ tag: "host", eq: "a" }]) { points { value } }
          b: series(metric: "traced.load", from: 0, to: 10000, where: [{ tag: "host", eq: "b" }]) { points { value } }
        }`,
        {},
        { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` },
      );
      expect(got.body).toEqual({
        data: {
          a: [{ points: [1, 2, 3].map((value) => ({ value })) }],
          b: [{ points: [2, 3, 4].map((value) => ({ value })) }],
        },
      });
    });
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([TRACE_ID]));
    const query = { query: ['plan', 'read and aggregate'] };
    expect(tree(spans, CALLER_SPAN)).toEqual([
      {
        'POST /graphql': [
          'write answer',
          { 'query Dashboard': ['index read', 'index read', 'index read', query, query] },
        ],
      },
    ]);
    const request = spans.find((span) => span.name === 'POST /graphql')!;
    expect(request.kind).toBe(2); // SERVER
    expect(attribute(request, 'http.response.status_code')).toBe(200);
    expect(attribute(request, 'http.route')).toBe('/graphql');
    const operation = spans.find((span) => span.name === 'query Dashboard')!;
    expect([attribute(operation, 'graphql.operation.type'), attribute(operation, 'graphql.operation.name')]).toEqual([
      'query',
      'Dashboard',
    ]);
    const queries = spans.filter((span) => span.name === 'query');
    expect(
      queries
        .map((span) => [
          attribute(span, 'kairograph.query'),
          attribute(span, 'kairograph.metric'),
          attribute(span, 'kairograph.series'),
          attribute(span, 'kairograph.points_read'),
        ])
        .sort(),
    ).toEqual([
      ['a', 'traced.load', 1, 3],
      ['b', 'traced.load', 1, 3],
    ]);
    // One read of each index the plan needs for the two aliases together: the loaders batch them per request.
    const reads = spans.filter((span) => span.name === 'index read');
    expect(
      reads.map((span) => [attribute(span, 'kairograph.read'), attribute(span, 'kairograph.keys')]).sort(),
    ).toEqual([
      ['legacyRowKeys', 1],
      ['rowKeys', 1],
      ['rowTimes', 1],
    ]);
  });

  it('traces a REST request under its route, and marks a failed query as an error', async () => {
    const spans = await traced(
      async (g) => {
        const post = (tags: Record<string, string>) =>
          fetch(`${g.url}/api/v1/datapoints/query`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ start_absolute: 0, metrics: [{ name: 'traced.load', tags }] }),
          });
        expect((await post({ host: 'a' })).status).toBe(200);
        // Two series where a query may read one.
        expect((await post({})).status).toBe(422);
      },
      { MAX_QUERY_SERIES: '1' },
    );
    const requests = spans.filter((span) => span.name === 'POST /api/v1/datapoints/query');
    expect(requests.map((span) => attribute(span, 'http.response.status_code'))).toEqual([200, 422]);
    const [ok, bad] = requests;
    const stages = { query: ['plan', 'read and aggregate'] };
    const reads = ['index read', 'index read', 'index read'];
    expect(tree(spans, ok!.spanId)).toEqual([...reads, 'write answer', stages]);
    expect(tree(spans, bad!.spanId)).toEqual([...reads, 'write answer', stages]);
    const failed = spans.find((span) => span.name === 'query' && span.parentSpanId === bad!.spanId)!;
    expect(failed.status).toEqual({ code: 2, message: expect.stringContaining('MAX_QUERY_SERIES') });
    expect(attribute(failed, 'error.type')).toBe('BUDGET_EXCEEDED');
  });
});

it('sends nothing when OTEL_TRACES_EXPORTER is not set', async () => {
  const g = await startGateway(store);
  received.length = 0;
  await g.graphql('{ metricNames }');
  await g.close();
  await g.gateway.flushTraces();
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(received).toEqual([]);
});
