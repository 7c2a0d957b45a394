/**
 * KairosDB's telnet protocol over real TCP sockets into a started gateway: exact points read back through REST and
 * GraphQL, the answers to bad lines (none but to `version`), /metrics, and garbage that leaves the process unharmed.
 */
import { describe, expect, it } from 'vitest';
import { connectLines, eventually } from '../support/tcp-sender.js';
import { closeGatewaysAfterEach, expectMetrics, queryText, read, readCount, start } from './ingest-gateway.js';

closeGatewaysAfterEach();

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
      'kairograph_ingest_points_written_total{protocol="telnet"} 1',
      'kairograph_ingest_rejected_total{protocol="telnet",reason="unknown_command"} 1',
      'kairograph_ingest_rejected_total{protocol="telnet",reason="malformed"} 4',
      'kairograph_ingest_rejected_total{protocol="telnet",reason="invalid"} 1',
    ]);
  });

  it('reads lines as UTF-8, where KairosDB reads ISO-8859-1', async () => {
    const gateway = await start();
    const client = await connectLines(gateway.telnet);
    await client.send(Buffer.from('put temp.métro 1700000000 21 ville=Zürich\n', 'utf8'));
    await client.end();
    expect(await readCount(gateway, 'temp.métro', 1)).toEqual([
      { name: 'temp.métro', tags: { ville: ['Zürich'] }, values: [[1_700_000_000_000, 21]] },
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
