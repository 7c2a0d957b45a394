/**
 * KairosDB's telnet protocol and Graphite's plaintext over real TCP sockets into a started gateway on the embedded
 * store, read back through KairosDB's REST API: exact points, the answers to bad lines, /metrics, and the bounds a
 * sender meets (line length, idle time, connections, backpressure, shutdown).
 */
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import type { Store } from '../../src/store/store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { delegatingStore } from '../support/store-wrappers.js';
import { connectLines, eventually, freePort } from '../support/tcp-sender.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

afterAll(removeTempDirs);

const open: TestGateway[] = [];
afterEach(async () => {
  for (const gateway of open.splice(0)) await gateway.close();
});

interface Ports {
  telnet: number;
  graphite: number;
}

async function start(env: Record<string, string> = {}, store?: Store): Promise<TestGateway & Ports> {
  const [telnet, graphite] = [await freePort(), await freePort()];
  const gateway = await startGateway(store ?? (await EmbeddedStore.open({ path: tempDir('kairograph-tcp-') })), {
    TELNET_PORT: String(telnet),
    GRAPHITE_PORT: String(graphite),
    TCP_INGEST_BATCH_MS: '20',
    ...env,
  });
  open.push(gateway);
  return Object.assign(gateway, { telnet, graphite });
}

interface Result {
  name: string;
  tags: Record<string, string[]>;
  values: [number, number | string][];
}

/** The REST answer's text for every series of `metric` in [0, 2e12], one result per tag combination (group_by tags). */
async function queryText(gateway: TestGateway, metric: string, tagNames: string[] = []): Promise<string> {
  const response = await fetch(`${gateway.url}/api/v1/datapoints/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      start_absolute: 0,
      end_absolute: 2_000_000_000_000,
      metrics: [{ name: metric, ...(tagNames.length ? { group_by: [{ name: 'tag', tags: tagNames }] } : {}) }],
    }),
  });
  return response.text();
}

async function read(gateway: TestGateway, metric: string, tagNames: string[] = []): Promise<Result[]> {
  const body = JSON.parse(await queryText(gateway, metric, tagNames)) as {
    queries: { results: (Result & { group_by?: unknown })[] }[];
  };
  return body.queries[0]!.results.map(({ name, tags, values }) => ({ name, tags, values }));
}

/** Reads until `metric` holds `count` points in all. */
async function readCount(gateway: TestGateway, metric: string, count: number, tagNames: string[] = []) {
  return eventually(async () => {
    const results = await read(gateway, metric, tagNames);
    const total = results.reduce((n, result) => n + result.values.length, 0);
    return total === count ? results : undefined;
  });
}

async function metricsText(gateway: TestGateway): Promise<string[]> {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  return text.split('\n').filter((line) => line.startsWith('kairograph_ingest_tcp_'));
}

/**
 * Asserts that /metrics shows `expected` lines, polling a moment: a point is counted when its write returns, which the
 * embedded store may report a little after a reader can see the point.
 */
async function expectMetrics(gateway: TestGateway, expected: string[]): Promise<void> {
  const lines = await eventually(async () => {
    const shown = await metricsText(gateway);
    return expected.every((line) => shown.includes(line)) ? shown : undefined;
  }).catch(() => metricsText(gateway));
  expect(lines).toEqual(expect.arrayContaining(expected));
}

describe('telnet', () => {
  it('stores put, putm and puts lines with their types, tags, TTL and times in ms', async () => {
    const gateway = await start();
    const client = await connectLines(gateway.telnet);
    await client.send(
      [
        'put sys.load 1700000000 42 host=a',
        'put sys.load 1700000060123 0.5 host=a',
        'putm sys.load 1700000120000 -7 host=b dc=x',
        'put sys.load 1700000180 9007199254740992 host=b dc=x',
        'put sys.big 1700000000 9223372036854775807 host=a',
        'puts sys.status 1700000000000 up host=a kairos_opt.ttl=3600',
        'put sys.untagged 1700000000 1',
        '',
      ].join('\r\n'),
    );
    await client.end();
    expect(await readCount(gateway, 'sys.load', 4, ['host', 'dc'])).toEqual([
      {
        name: 'sys.load',
        tags: { host: ['a'] },
        values: [
          [1_700_000_000_000, 42],
          [1_700_000_060_123, 0.5],
        ],
      },
      {
        name: 'sys.load',
        tags: { dc: ['x'], host: ['b'] },
        values: [
          [1_700_000_120_000, -7],
          [1_700_000_180_000, 9_007_199_254_740_992],
        ],
      },
    ]);
    // A long beyond 2^53 keeps its digits: asserted on the answer's text, which JSON.parse would round.
    await readCount(gateway, 'sys.big', 1);
    expect(await queryText(gateway, 'sys.big')).toContain('"values":[[1700000000000,9223372036854775807]]');
    expect(await readCount(gateway, 'sys.status', 1)).toEqual([
      { name: 'sys.status', tags: { host: ['a'] }, values: [[1_700_000_000_000, 'up']] },
    ]);
    expect(await readCount(gateway, 'sys.untagged', 1)).toEqual([
      { name: 'sys.untagged', tags: { add: ['tag'] }, values: [[1_700_000_000_000, 1]] },
    ]);
  });

  it('answers version, and nothing to bad lines, keeping the connection open as KairosDB does', async () => {
    const gateway = await start();
    const client = await connectLines(gateway.telnet);
    await client.send(
      [
        'version',
        'help',
        'put bad.line 1700000000',
        'put bad.line 1700000000 abc host=a',
        'put bad.line 1700000000 1 host=',
        'put bad.line 1700000000 1 host=a host=b',
        // Well formed, refused by the write validation: a time beyond what the gateway holds.
        'putm bad.line 9000000000000000 1 host=a',
        'put good.line 1700000000 1 host=a',
        'version',
        '',
      ].join('\n'),
    );
    await eventually(async () => (client.replies().split('\n').length === 3 ? true : undefined));
    expect(client.replies()).toMatch(
      /^KairosDB 1\.3\.0-1 \(Kairograph [\d.]+\)\nKairosDB 1\.3\.0-1 \(Kairograph [\d.]+\)\n$/,
    );
    expect(await readCount(gateway, 'good.line', 1)).toEqual([
      { name: 'good.line', tags: { host: ['a'] }, values: [[1_700_000_000_000, 1]] },
    ]);
    expect(client.socket.destroyed).toBe(false);
    await client.end();
    expect(await read(gateway, 'bad.line')).toEqual([]);
    await expectMetrics(gateway, [
      'kairograph_ingest_tcp_points_total{protocol="telnet"} 1',
      'kairograph_ingest_tcp_rejected_total{protocol="telnet",reason="unknown_command"} 1',
      'kairograph_ingest_tcp_rejected_total{protocol="telnet",reason="malformed"} 4',
      'kairograph_ingest_tcp_rejected_total{protocol="telnet",reason="invalid"} 1',
    ]);
  });

  it('survives binary garbage: lines refused, the next good line stored, /health fast', async () => {
    const gateway = await start();
    const client = await connectLines(gateway.telnet);
    const garbage = Buffer.alloc(3000);
    for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 7919 + 13) % 256;
    await client.send(garbage);
    await client.send('\nput after.garbage 1700000000 5 host=a\n');
    const started = performance.now();
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await readCount(gateway, 'after.garbage', 1)).toEqual([
      { name: 'after.garbage', tags: { host: ['a'] }, values: [[1_700_000_000_000, 5]] },
    ]);
    await client.end();
  });
});

describe('graphite', () => {
  it('stores plaintext lines, tags and now for -1; the whole path is the metric', async () => {
    const gateway = await start();
    const client = await connectLines(gateway.graphite);
    const before = Date.now();
    await client.send(
      'servers.web1.cpu 0.25 1700000000\nservers.web1.cpu 3 1700000010.5\ndisk.used;mount=/var;host=web1 70 1700000000\nnow.metric 1 -1\nbad.metric nan 1700000000\n',
    );
    await client.end();
    expect(await readCount(gateway, 'servers.web1.cpu', 2)).toEqual([
      {
        name: 'servers.web1.cpu',
        tags: {},
        values: [
          [1_700_000_000_000, 0.25],
          [1_700_000_010_500, 3],
        ],
      },
    ]);
    expect(await readCount(gateway, 'disk.used', 1)).toEqual([
      { name: 'disk.used', tags: { host: ['web1'], mount: ['/var'] }, values: [[1_700_000_000_000, 70]] },
    ]);
    const [now] = await readCount(gateway, 'now.metric', 1);
    expect(now!.values[0]![0]).toBeGreaterThanOrEqual(before);
    expect(now!.values[0]![0]).toBeLessThanOrEqual(Date.now());
    await expectMetrics(gateway, [
      'kairograph_ingest_tcp_points_total{protocol="graphite"} 4',
      'kairograph_ingest_tcp_rejected_total{protocol="graphite",reason="malformed"} 1',
    ]);
  });

  it("maps a path position to the host tag with kairos-carbon's rule", async () => {
    const gateway = await start({ GRAPHITE_HOST_TAG_POSITION: '2' });
    const client = await connectLines(gateway.graphite);
    await client.send('servers.web1.cpu.load 1.5 1700000000\nservers.web2.cpu.load 2.5 1700000000\nshort.path 1 1\n');
    await client.end();
    expect(await readCount(gateway, 'servers.cpu.load', 2, ['host'])).toEqual([
      { name: 'servers.cpu.load', tags: { host: ['web1'] }, values: [[1_700_000_000_000, 1.5]] },
      { name: 'servers.cpu.load', tags: { host: ['web2'] }, values: [[1_700_000_000_000, 2.5]] },
    ]);
  });

  it('takes lines from a real sender that is not Kairograph (Python sockets), both protocols', async () => {
    const gateway = await start();
    const script = [
      'import socket, sys',
      "t = socket.create_connection(('127.0.0.1', int(sys.argv[1])))",
      "t.sendall(b'put py.telnet 1700000000 11 host=py\\n')",
      't.close()',
      "g = socket.create_connection(('127.0.0.1', int(sys.argv[2])))",
      "g.sendall(b'py.graphite;host=py 12 1700000000\\n')",
      'g.close()',
    ].join('\n');
    const run = spawnSync('python3', ['-c', script, String(gateway.telnet), String(gateway.graphite)], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(await readCount(gateway, 'py.telnet', 1)).toEqual([
      { name: 'py.telnet', tags: { host: ['py'] }, values: [[1_700_000_000_000, 11]] },
    ]);
    expect(await readCount(gateway, 'py.graphite', 1)).toEqual([
      { name: 'py.graphite', tags: { host: ['py'] }, values: [[1_700_000_000_000, 12]] },
    ]);
  });
});

describe('read back through GraphQL', () => {
  const READ = `query Read($metric: String!) {
    points(metric: $metric, from: 0, to: 2000000000000) {
      tags { name values }
      points { epochMs value long text type }
    }
  }`;

  it("keeps each line's type: longs (past 2^53 too), doubles and strings, at the millisecond", async () => {
    const gateway = await start();
    const telnet = await connectLines(gateway.telnet);
    await telnet.send(
      'put gql.mixed 1700000000 9223372036854775807 host=t\nputm gql.mixed 1700000000001 2.5 host=t\nputs gql.mixed 1700000000002 ok host=t\n',
    );
    await telnet.end();
    const graphite = await connectLines(gateway.graphite);
    await graphite.send('gql.mixed;host=g 7 1700000000.003\n');
    await graphite.end();
    await readCount(gateway, 'gql.mixed', 4);
    const read = await gateway.graphql(READ, { metric: 'gql.mixed' });
    expect(read.body).toEqual({
      data: {
        points: [
          {
            tags: [{ name: 'host', values: ['g'] }],
            points: [{ epochMs: 1_700_000_000_003, value: 7, long: 7, text: null, type: 'LONG' }],
          },
          {
            tags: [{ name: 'host', values: ['t'] }],
            points: [
              {
                epochMs: 1_700_000_000_000,
                value: 2 ** 63,
                long: '9223372036854775807',
                text: null,
                type: 'LONG',
              },
              { epochMs: 1_700_000_000_001, value: 2.5, long: null, text: null, type: 'DOUBLE' },
              { epochMs: 1_700_000_000_002, value: null, long: null, text: 'ok', type: 'STRING' },
            ],
          },
        ],
      },
    });
  });
});

describe('the TCP server', () => {
  it('closes a connection whose line is too long, after writing the lines before it', async () => {
    const gateway = await start({ TCP_INGEST_MAX_LINE_BYTES: '100' });
    const client = await connectLines(gateway.telnet);
    await client.send('put before.long 1700000000 1 host=a\n');
    await client.send('x'.repeat(500));
    expect(await client.closed).toBeLessThan(2000);
    expect(await readCount(gateway, 'before.long', 1)).toEqual([
      { name: 'before.long', tags: { host: ['a'] }, values: [[1_700_000_000_000, 1]] },
    ]);
    await expectMetrics(gateway, [
      'kairograph_ingest_tcp_rejected_total{protocol="telnet",reason="line_too_long"} 1',
      'kairograph_ingest_tcp_connections_closed_total{protocol="telnet",reason="line_too_long"} 1',
    ]);
  });

  it('closes a connection at an HTTP request line, so a web page cannot post lines to the port', async () => {
    const gateway = await start();
    for (const port of [gateway.telnet, gateway.graphite]) {
      // What a browser's fetch sends; the body's lines would be points if the request line did not end the connection.
      const body = 'put from.page 1700000000 1 host=a\nfrom.page 1 1700000000\n';
      await expect(fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body })).rejects.toThrow('fetch failed');
    }
    const client = await connectLines(gateway.telnet);
    await client.send('put before.http 1700000000 1 host=a\nGET / HTTP/1.1\r\nput after.http 1700000000 1 host=a\n');
    expect(await client.closed).toBeLessThan(2000);
    expect(await readCount(gateway, 'before.http', 1)).toHaveLength(1);
    expect(await read(gateway, 'after.http')).toEqual([]);
    expect(await read(gateway, 'from.page')).toEqual([]);
    await expectMetrics(gateway, [
      'kairograph_ingest_tcp_connections_closed_total{protocol="telnet",reason="http_request"} 2',
      'kairograph_ingest_tcp_connections_closed_total{protocol="graphite",reason="http_request"} 1',
    ]);
  });

  it('closes an idle connection in bounded time and drops a cut last line', async () => {
    const gateway = await start({ TCP_INGEST_IDLE_TIMEOUT_MS: '300' });
    const client = await connectLines(gateway.graphite);
    await client.send('idle.metric 1 1700000000\nidle.metric 2 17000');
    const openMs = await client.closed;
    expect(openMs).toBeGreaterThanOrEqual(250);
    expect(openMs).toBeLessThan(2500);
    expect(await readCount(gateway, 'idle.metric', 1)).toEqual([
      { name: 'idle.metric', tags: {}, values: [[1_700_000_000_000, 1]] },
    ]);
    await expectMetrics(gateway, [
      'kairograph_ingest_tcp_connections_closed_total{protocol="graphite",reason="idle"} 1',
    ]);
  });

  it('refuses connections past its bound', async () => {
    const gateway = await start({ TCP_INGEST_MAX_CONNECTIONS: '1' });
    const first = await connectLines(gateway.telnet);
    const second = await connectLines(gateway.telnet);
    expect(await second.closed).toBeLessThan(2000);
    expect(first.socket.destroyed).toBe(false);
    await first.send('version\n');
    await eventually(async () => (first.replies().startsWith('KairosDB') ? true : undefined));
    await first.end();
  });

  it('pauses a sender faster than the store: it waits in its own buffers, batches stay bounded, every point arrives', async () => {
    const batches: number[] = [];
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const inner = await EmbeddedStore.open({ path: tempDir('kairograph-tcp-slow-') });
    const slow = delegatingStore(inner, {
      write: async (batch) => {
        batches.push(batch.series.reduce((n, series) => n + series.timestamps.length, 0));
        await gate;
        return inner.write(batch);
      },
    });
    // Batches by count only: the point is what the bound does.
    const gateway = await start({ TCP_INGEST_BATCH_POINTS: '500', TCP_INGEST_BATCH_MS: '60000' }, slow);
    onTestFinished(() => open());
    const client = await connectLines(gateway.telnet);
    // Lines of 3000 bytes (KairosDB's splitter passes over the spaces), 24 MB in all: more than the kernel buffers.
    const lines = 8000;
    const padding = ' '.repeat(3000);
    let text = '';
    for (let i = 0; i < lines; i++) text += `putm fast.sender ${1_600_000_000_000 + i} ${i} host=a${padding}\n`;
    const sent = client.send(text);
    await eventually(async () => (batches.length > 0 ? true : undefined));
    await sleep(300);
    // While the store holds the first batch, the gateway reads nothing more: the rest waits on the sender's side.
    expect(batches).toEqual([500]);
    expect(client.socket.writableLength).toBeGreaterThan(4_000_000);
    open();
    await sent;
    await client.end();
    const [series] = await readCount(gateway, 'fast.sender', lines);
    expect(series!.values[0]).toEqual([1_600_000_000_000, 0]);
    expect(series!.values[lines - 1]).toEqual([1_600_000_000_000 + lines - 1, lines - 1]);
    // A batch is written at its bound, plus at most the lines of the chunk being read when it was reached.
    expect(Math.max(...batches)).toBeLessThanOrEqual(500 + Math.ceil(65_536 / 3000));
    expect(batches.reduce((a, b) => a + b, 0)).toBe(lines);
  });

  it('closes the connection of a batch the store refuses, counting its points lost; the next connection writes', async () => {
    const inner = await EmbeddedStore.open({ path: tempDir('kairograph-tcp-fail-') });
    let failures = 1;
    const failing = delegatingStore(inner, {
      write: async (batch) => {
        if (failures-- > 0) throw new Error('the store is down');
        return inner.write(batch);
      },
    });
    const gateway = await start({}, failing);
    const first = await connectLines(gateway.telnet);
    await first.send('put lost.point 1700000000 1 host=a\n');
    expect(await first.closed).toBeLessThan(2000);
    const second = await connectLines(gateway.telnet);
    await second.send('put kept.point 1700000000 3 host=a\n');
    await second.end();
    expect(await readCount(gateway, 'kept.point', 1)).toEqual([
      { name: 'kept.point', tags: { host: ['a'] }, values: [[1_700_000_000_000, 3]] },
    ]);
    expect(await read(gateway, 'lost.point')).toEqual([]);
    await expectMetrics(gateway, [
      'kairograph_ingest_tcp_rejected_total{protocol="telnet",reason="store"} 1',
      'kairograph_ingest_tcp_connections_closed_total{protocol="telnet",reason="store"} 1',
      'kairograph_ingest_tcp_points_total{protocol="telnet"} 1',
    ]);
  });

  it('writes what connections hold on shutdown before it closes them', async () => {
    const store = await EmbeddedStore.open({ path: tempDir('kairograph-tcp-stop-') });
    const gateway = await start({ TCP_INGEST_BATCH_MS: '60000' }, store);
    const client = await connectLines(gateway.telnet);
    await client.send('put held.point 1700000000 3 host=a\n');
    await sleep(100);
    open.splice(open.indexOf(gateway), 1);
    await gateway.close();
    expect(await client.closed).toBeLessThan(5000);
    const reader = await start({}, store);
    expect(await read(reader, 'held.point')).toEqual([
      { name: 'held.point', tags: { host: ['a'] }, values: [[1_700_000_000_000, 3]] },
    ]);
  });
});
