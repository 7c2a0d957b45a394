/**
 * KairosDB 1.3's roll-up tasks and Kairograph's on one keyspace: a task written with plain CQL in KairosDB's layout
 * (`service_index`, service `_Rollups`, service key `Config`, key = id, value = the task's JSON) read back through both
 * servers and both of Kairograph's front ends; a task created through either server's REST API read through the
 * other's; the status row Kairograph writes read by KairosDB's status endpoint. Tasks roll up metrics nobody writes
 * and are deleted at the end, so the real KairosDB, which runs tasks too, disturbs no other test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kairosStatusJson } from '../../src/rollups/kairos-status-json.js';
import { taskStoreOf } from '../../src/rollups/task-store.js';
import { KairosdbSource } from '../../src/sources/kairosdb/kairosdb-source.js';
import { Sources } from '../../src/sources/sources.js';
import { plainClient } from '../integration/cassandra-stores.js';
import { openPair, uniquePrefix, type Pair } from './kairosdb-pair.js';

let pair: Pair;
const created: string[] = [];
beforeAll(async () => {
  pair = await openPair();
});
afterAll(async () => {
  for (const id of created) await pair?.kairograph.call('DELETE', `/api/v1/rollups/${id}`);
  await pair?.close();
});

const prefix = uniquePrefix('rollup');
/** A task over a metric no test writes, run daily: KairosDB may run it, and it writes nothing. */
const task = (label: string, extra: Record<string, unknown> = {}) => ({
  name: `${prefix}${label}`,
  execution_interval: { value: 1, unit: 'days' },
  rollups: [
    {
      save_as: `${prefix}${label}.rollup`,
      query: {
        cache_time: 0,
        start_relative: { value: '1', unit: 'days' },
        metrics: [
          {
            name: `${prefix}${label}`,
            tags: { host: ['a'] },
            group_by: [{ name: 'tag', tags: ['host'] }],
            aggregators: [{ name: 'sum', sampling: { value: 1, unit: 'hours' }, align_sampling: true }],
          },
        ],
      },
    },
  ],
  ...extra,
});

describe('roll-up tasks on one keyspace with KairosDB 1.3', () => {
  it("reads a task written with plain CQL in KairosDB's layout through both servers, by REST and GraphQL", async () => {
    const id = `${prefix}cql`.replaceAll('.', '-');
    created.push(id);
    const json = JSON.stringify({ id, ...task('cql') });
    const cql = await plainClient();
    try {
      await cql.execute(
        `INSERT INTO ${pair.keyspace}.service_index (service, service_key, key, value, mtime) VALUES ('_Rollups', 'Config', ?, ?, now()) USING TIMESTAMP ?`,
        [id, json, Date.now()],
        {
          prepare: true,
        },
      );
    } finally {
      await cql.shutdown();
    }
    for (const server of ['kairosdb', 'kairograph'] as const) {
      const answer = await pair[server].call('GET', `/api/v1/rollups/${id}`);
      expect([server, answer.status, answer.text]).toEqual([server, 200, json]);
    }
    const listed = (await pair.kairograph.call('GET', '/api/v1/rollups')).json as { id: string }[];
    expect(listed.find((t) => t.id === id)).toEqual(JSON.parse(json));
    const graphql = await pair.kairograph.call('POST', '/graphql', {
      body: { query: '{ rollups { id name json executionInterval { value unit } rollups { saveAs metrics } error } }' },
    });
    const tasks = (graphql.json as { data: { rollups: { id: string }[] } }).data.rollups;
    expect(tasks.find((t) => t.id === id)).toEqual({
      id,
      name: `${prefix}cql`,
      json,
      executionInterval: { value: 1, unit: 'DAYS' },
      rollups: [{ saveAs: `${prefix}cql.rollup`, metrics: [`${prefix}cql`] }],
      error: null,
    });
  });

  it("reads a task created through Kairograph's REST API through KairosDB's, and the reverse", async () => {
    const ours = await pair.kairograph.call('POST', '/api/v1/rollups', { body: task('ours') });
    expect(ours.status).toBe(200);
    const ourId = (ours.json as { id: string }).id;
    created.push(ourId);
    const stored = (await pair.kairograph.call('GET', `/api/v1/rollups/${ourId}`)).text;
    const inKairos = await pair.kairosdb.call('GET', `/api/v1/rollups/${ourId}`);
    expect([inKairos.status, inKairos.text]).toEqual([200, stored]);

    const theirs = await pair.kairosdb.call('POST', '/api/v1/rollups', { body: task('theirs') });
    expect(theirs.status).toBe(200);
    const theirId = (theirs.json as { id: string }).id;
    created.push(theirId);
    expect(theirs.json).toEqual({
      id: theirId,
      name: `${prefix}theirs`,
      attributes: { url: `/api/v1/rollups/${theirId}` },
    });
    const inKairograph = await pair.kairograph.call('GET', `/api/v1/rollups/${theirId}`);
    expect(inKairograph.status).toBe(200);
    expect(JSON.parse(inKairograph.text)).toEqual({ id: theirId, ...task('theirs') });
    expect(inKairograph.text).toBe((await pair.kairosdb.call('GET', `/api/v1/rollups/${theirId}`)).text);

    // An update through Kairograph keeps the id and is what KairosDB reads; a delete through KairosDB removes it here.
    const renamed = await pair.kairograph.call('PUT', `/api/v1/rollups/${theirId}`, {
      body: task('theirs', { name: `${prefix}renamed` }),
    });
    expect(renamed.json).toEqual({
      id: theirId,
      name: `${prefix}renamed`,
      attributes: { url: `/api/v1/rollups/${theirId}` },
    });
    expect(JSON.parse((await pair.kairosdb.call('GET', `/api/v1/rollups/${theirId}`)).text)).toMatchObject({
      id: theirId,
      name: `${prefix}renamed`,
    });
    expect((await pair.kairosdb.call('DELETE', `/api/v1/rollups/${theirId}`)).status).toBe(204);
    expect((await pair.kairograph.call('GET', `/api/v1/rollups/${theirId}`)).json).toEqual({
      errors: [`Resource not found for id ${theirId}`],
    });
  });

  it("has KairosDB's status endpoint read the status row Kairograph writes", async () => {
    const { id } = (await pair.kairograph.call('POST', '/api/v1/rollups', { body: task('status') })).json as {
      id: string;
    };
    created.push(id);
    const record = {
      periodStartMs: 1_767_571_200_000,
      periodEndMs: 1_767_657_600_000,
      startedMs: 1_767_657_660_000,
      finishedMs: 1_767_657_661_000,
      durationMs: 1000,
      pointsWritten: 24,
      owner: 'gateway-1',
      queries: [{ metric: `${prefix}status`, pointsWritten: 24, durationMs: 1000 }],
    };
    await taskStoreOf(new Sources(new KairosdbSource('kairosdb', pair.store)))!.writeKairosStatus(
      id,
      kairosStatusJson(record, 1_767_744_060_000, 'host-1'),
    );
    const kairos = await pair.kairosdb.call('GET', `/api/v1/rollups/status/${id}`);
    expect([kairos.status, kairos.json]).toEqual([
      200,
      {
        statuses: [
          {
            metric_name: `${prefix}status`,
            last_executed: '06 Jan 2026 00:01:01 AM',
            data_point_count: 24,
            execution_length: 1000,
            last_execution_time: 1_767_657_661_000,
          },
        ],
        executing_host: 'host-1',
        next_scheduled: '07 Jan 2026 00:01:00 AM',
      },
    ]);
    const ours = (await pair.kairograph.call('GET', `/api/v1/rollups/status/${id}`)).json as Record<string, unknown>;
    expect({ ...ours, kairograph: undefined }).toEqual({ ...(kairos.json as object), kairograph: undefined });
  });
});
