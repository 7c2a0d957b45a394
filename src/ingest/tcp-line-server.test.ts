/** The shared TCP line server alone, over a write the test holds: what happens while a store does not answer. */
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { connectLines } from '../../test/support/tcp-sender.js';
import type { KeyLimits } from '../model/key-limits.js';
import type { WriteBatch } from '../model/write-batch.js';
import { TcpLineServer } from './tcp-line-server.js';
import { TcpIngestMetrics } from './tcp-metrics.js';
import { IngestMetrics } from './ingest-metrics.js';
import { TELNET } from './telnet-protocol.js';

const KEYS: KeyLimits = { store: "the test's", maxMetricBytes: 10_000, maxRowKeyBytes: 10_000 };

const servers: TcpLineServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close(0);
});

/** A telnet server whose writes wait for the test: `release()` lets every write so far through. */
function heldServer(idleTimeoutMs = 60_000) {
  const writes: WriteBatch[] = [];
  const waiting: (() => void)[] = [];
  const logged: string[] = [];
  const server = new TcpLineServer(
    TELNET,
    { host: '127.0.0.1', port: 0, maxConnections: 10, idleTimeoutMs, maxLineBytes: 1000, batchPoints: 1, batchMs: 10 },
    {
      write: (batch) => {
        writes.push(batch);
        return new Promise<void>((resolve) => waiting.push(resolve));
      },
      keys: KEYS,
      metrics: new TcpIngestMetrics(new Registry(), new IngestMetrics(new Registry())),
      log: pino({ level: 'info' }, { write: (line: string) => void logged.push(line) }),
    },
  );
  servers.push(server);
  const release = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  return { server, writes, logged, release };
}

describe('TcpLineServer', () => {
  it('does not let a store that never answers hold shutdown: connections are cut after the wait, the loss logged', async () => {
    const { server, writes, logged } = heldServer();
    const { port } = await server.listen();
    const client = await connectLines(port);
    await client.send('put m 1700000000 1 host=a\n');
    while (writes.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const started = performance.now();
    await server.close(200);
    expect(performance.now() - started).toBeLessThan(3000);
    await client.closed;
    expect(logged.map((line) => JSON.parse(line).msg)).toContain('shutdown did not wait for the store');
  });

  it('keeps an idle timeout armed through a long write, and closes the connection once it is done', async () => {
    const { server, writes, release } = heldServer(150);
    const { port } = await server.listen();
    const client = await connectLines(port);
    await client.send('put m 1700000000 1 host=a\n');
    while (writes.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    // Several idle periods pass while the write is held: the connection stays, paused.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(client.socket.destroyed).toBe(false);
    release();
    const openMs = await client.closed;
    expect(openMs).toBeLessThan(2000);
    expect(writes.map((batch) => batch.series.map((series) => series.timestamps))).toEqual([[[1_700_000_000_000]]]);
  });
});
