/**
 * KairosDB 1.3's metadata API and Kairograph's on one keyspace: values one writes the other reads, through both of
 * Kairograph's front ends, values written with plain CQL in KairosDB's layout read back through both servers, and
 * deletes that shadow the other's writes (both write in milliseconds). Where the two answer differently (service key
 * lists, KairosDB's own services), COMPATIBILITY.md says why, and the test pins both answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainClient } from '../integration/cassandra-stores.js';
import { callRest } from '../rest/rest-client.js';
import { openPair, uniquePrefix, type Pair } from './kairosdb-pair.js';

let pair: Pair;
beforeAll(async () => {
  pair = await openPair();
});
afterAll(async () => {
  await pair?.close();
});

/** A service no other run uses (the keyspace outlives runs). */
const service = (label: string) => uniquePrefix(`md_${label}`).replaceAll('.', '_');
const at = (...parts: string[]) => `/api/v1/metadata/${parts.map(encodeURIComponent).join('/')}`;
/** A value is answered as its own text, which need not be JSON: read both servers leniently. */
const value = async (server: 'kairosdb' | 'kairograph', path: string) => {
  const r = await callRest(pair[server].url, 'GET', path, {}, true);
  return { status: r.status, text: r.text };
};
const results = async (server: 'kairosdb' | 'kairograph', path: string) => (await pair[server].call('GET', path)).json;

describe('metadata on one keyspace with KairosDB 1.3', () => {
  it('values written through KairosDB read back through Kairograph, by REST and GraphQL', async () => {
    const s = service('from_kairosdb');
    for (const [sk, k, v] of [
      ['hosts', 'web-1', '{"rack": "r1"}'],
      ['hosts', 'web 2 ✓', 'plain text'],
      ['teams', 'ops', ''],
    ] as const) {
      expect(
        (await pair.kairosdb.call('POST', at(s, sk, k), { body: v, headers: { 'content-type': 'text/plain' } })).status,
      ).toBe(204);
    }
    expect(await value('kairograph', at(s, 'hosts', 'web-1'))).toEqual({ status: 200, text: '{"rack": "r1"}' });
    expect(await value('kairograph', at(s, 'hosts', 'web 2 ✓'))).toEqual({ status: 200, text: 'plain text' });
    expect(await value('kairograph', at(s, 'teams', 'ops'))).toEqual({ status: 200, text: '' });
    expect(await results('kairograph', at(s, 'hosts'))).toEqual({ results: ['web 2 ✓', 'web-1'] });
    expect(await results('kairograph', `${at(s, 'hosts')}?startsWith=web-`)).toEqual({ results: ['web-1'] });
    expect(await results('kairograph', at(s))).toEqual({ results: ['hosts', 'teams'] });
    const graphql = await pair.kairograph.call('POST', '/graphql', {
      body: {
        query: `{ metadata(service: "${s}") { serviceKeys keys(serviceKey: "hosts") value(serviceKey: "hosts", key: "web-1") { value writtenMs } } }`,
      },
    });
    const read = graphql.json as {
      data: { metadata: { serviceKeys: string[]; keys: string[]; value: { value: string; writtenMs: number } } };
    };
    expect(read.data.metadata).toMatchObject({
      serviceKeys: ['hosts', 'teams'],
      keys: ['web 2 ✓', 'web-1'],
      value: { value: '{"rack": "r1"}' },
    });
    // KairosDB's write time is its clock's milliseconds, as Kairograph's.
    expect(Math.abs(read.data.metadata.value.writtenMs - Date.now())).toBeLessThan(120_000);
  });

  it('values written through Kairograph read back through KairosDB, and deletes on either side shadow the other', async () => {
    const s = service('from_kairograph');
    expect((await pair.kairograph.call('POST', at(s, 'panels', 'cpu'), { body: '{"title": "CPU"}' })).status).toBe(204);
    expect((await pair.kairograph.call('POST', at(s, 'panels', 'mem'), { body: 'Memory' })).status).toBe(204);
    expect(await value('kairosdb', at(s, 'panels', 'cpu'))).toEqual({ status: 200, text: '{"title": "CPU"}' });
    expect(await results('kairosdb', at(s, 'panels'))).toEqual({ results: ['cpu', 'mem'] });

    // A delete through KairosDB removes what Kairograph wrote, and the other way round.
    expect((await pair.kairosdb.call('DELETE', at(s, 'panels', 'cpu'))).status).toBe(204);
    expect(await value('kairograph', at(s, 'panels', 'cpu'))).toEqual({
      status: 404,
      text: '{"errors":["Key not found"]}',
    });
    expect((await pair.kairosdb.call('POST', at(s, 'panels', 'disk'), { body: 'Disk' })).status).toBe(204);
    expect((await pair.kairograph.call('DELETE', at(s, 'panels', 'disk'))).status).toBe(204);
    expect(await value('kairosdb', at(s, 'panels', 'disk'))).toEqual({
      status: 404,
      text: '{"errors":["Key not found"]}',
    });
    expect(await results('kairosdb', at(s, 'panels'))).toEqual({ results: ['mem'] });
    expect(await results('kairograph', at(s, 'panels'))).toEqual({ results: ['mem'] });
  });

  it("values written with plain CQL in KairosDB's layout read back through both servers", async () => {
    const s = service('cql');
    const cql = await plainClient();
    try {
      const insert = `INSERT INTO ${pair.keyspace}.service_index (service, service_key, key, value, mtime) VALUES (?, ?, ?, ?, now()) USING TIMESTAMP ?`;
      await cql.execute(insert, [s, 'dashboards', 'home', '{"panels": 4}', Date.now()], { prepare: true });
      await cql.execute(insert, [s, 'dashboards', 'ops', 'x', Date.now()], { prepare: true });
    } finally {
      await cql.shutdown();
    }
    for (const server of ['kairosdb', 'kairograph'] as const) {
      expect(await value(server, at(s, 'dashboards', 'home'))).toEqual({ status: 200, text: '{"panels": 4}' });
      expect(await results(server, at(s, 'dashboards'))).toEqual({ results: ['home', 'ops'] });
    }
  });

  it('lists service keys once each, and not those whose keys are all deleted, where KairosDB lists one per key, in token order, and keeps emptied ones', async () => {
    const s = service('lists');
    for (const [sk, k] of [
      ['a', '1'],
      ['a', '2'],
      ['b', '1'],
    ] as const)
      expect((await pair.kairosdb.call('POST', at(s, sk, k), { body: 'v' })).status).toBe(204);
    expect((await pair.kairosdb.call('DELETE', at(s, 'b', '1'))).status).toBe(204);
    // KairosDB's ALLOW FILTERING scan answers a row per key, in token order.
    expect(((await results('kairosdb', at(s))) as { results: string[] }).results.sort()).toEqual(['a', 'a', 'b']);
    expect(await results('kairograph', at(s))).toEqual({ results: ['a'] });
  });

  it("refuses KairosDB's own services with a reason, where KairosDB answers a bare 401", async () => {
    const kairosdb = await pair.kairosdb.call('GET', at('_Rollups'));
    expect([kairosdb.status, kairosdb.text]).toEqual([401, '']);
    const kairograph = await pair.kairograph.call('GET', at('_Rollups'));
    expect([kairograph.status, kairograph.json]).toEqual([
      400,
      {
        errors: [
          "service starts with '_': such services are KairosDB's own (roll-up tasks, hosts), which the metadata API does not serve (got \"_Rollups\")",
        ],
      },
    ]);
  });
});
