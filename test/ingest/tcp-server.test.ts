/**
 * The bounds a sender meets on either TCP ingest port, each within bounded time: line length, HTTP request lines, idle
 * time, connections, backpressure from a slow store, a failing store, and shutdown writing what connections hold.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { delegatingStore } from '../support/store-wrappers.js';
import { connectLines, eventually } from '../support/tcp-sender.js';
import { tempDir } from '../support/temp-dir.js';
import { closeGatewaysAfterEach, expectMetrics, forget, read, readCount, start } from './ingest-gateway.js';

closeGatewaysAfterEach();

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
      'kairograph_ingest_rejected_total{protocol="telnet",reason="line_too_long"} 1',
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
    // The process is not the one waiting: it answers at once.
    const started = performance.now();
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1000);
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
      'kairograph_ingest_rejected_total{protocol="telnet",reason="store"} 1',
      'kairograph_ingest_tcp_connections_closed_total{protocol="telnet",reason="store"} 1',
      'kairograph_ingest_points_written_total{protocol="telnet"} 1',
    ]);
  });

  it('writes what connections hold on shutdown before it closes them', async () => {
    const store = await EmbeddedStore.open({ path: tempDir('kairograph-tcp-stop-') });
    const gateway = await start({ TCP_INGEST_BATCH_MS: '60000' }, store);
    const client = await connectLines(gateway.telnet);
    await client.send('put held.point 1700000000 3 host=a\n');
    await sleep(100);
    forget(gateway);
    await gateway.close();
    expect(await client.closed).toBeLessThan(5000);
    const reader = await start({}, store);
    expect(await read(reader, 'held.point')).toEqual([
      { name: 'held.point', tags: { host: ['a'] }, values: [[1_700_000_000_000, 3]] },
    ]);
  });
});
