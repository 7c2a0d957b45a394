/**
 * Graphite's plaintext protocol over real TCP sockets into a started gateway, by our client, by Python's sockets and in
 * the forms collectd and Telegraf send: exact points read back through REST.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { connectLines } from '../support/tcp-sender.js';
import { closeGatewaysAfterEach, expectMetrics, readCount, start } from './ingest-gateway.js';

closeGatewaysAfterEach();

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
      'kairograph_ingest_points_written_total{protocol="graphite"} 4',
      'kairograph_ingest_rejected_total{protocol="graphite",reason="malformed"} 1',
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

describe('the lines collectors send', () => {
  it("stores collectd's write_graphite paths with the host taken out, as docs/ingest-tcp.md configures it", async () => {
    const gateway = await start({ GRAPHITE_HOST_TAG_POSITION: '2' });
    const client = await connectLines(gateway.graphite);
    await client.send(
      'collectd.web1_example_com.cpu-0.cpu-user 1.5 1700000000\ncollectd.web1_example_com.load.load.shortterm 0.25 1700000000\n',
    );
    await client.end();
    expect(await readCount(gateway, 'collectd.cpu-0.cpu-user', 1)).toEqual([
      { name: 'collectd.cpu-0.cpu-user', tags: { host: ['web1_example_com'] }, values: [[1_700_000_000_000, 1.5]] },
    ]);
    expect(await readCount(gateway, 'collectd.load.load.shortterm', 1)).toEqual([
      {
        name: 'collectd.load.load.shortterm',
        tags: { host: ['web1_example_com'] },
        values: [[1_700_000_000_000, 0.25]],
      },
    ]);
  });

  it("stores Telegraf's OpenTSDB telnet lines and its Graphite lines with tags as the same series", async () => {
    const gateway = await start();
    const telnet = await connectLines(gateway.telnet);
    await telnet.send('put cpu.usage_idle 1700000000 98.5 cpu=cpu-total host=web1\n');
    await telnet.end();
    const graphite = await connectLines(gateway.graphite);
    await graphite.send('cpu.usage_idle;cpu=cpu-total;host=web1 97.25 1700000010\n');
    await graphite.end();
    expect(await readCount(gateway, 'cpu.usage_idle', 2)).toEqual([
      {
        name: 'cpu.usage_idle',
        tags: { cpu: ['cpu-total'], host: ['web1'] },
        values: [
          [1_700_000_000_000, 98.5],
          [1_700_000_010_000, 97.25],
        ],
      },
    ]);
  });
});
