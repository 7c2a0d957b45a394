/**
 * What answers reveal, and what one client may keep: a write-only credential learns nothing of values through a
 * roll-up task's answer (the attack that bracketed an hourly maximum), introspection needs `read`, which gateway ran a
 * task is the operators', and roll-up tasks are bounded per client and in how often they run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenHash } from '../../src/http/hashes.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { callRest } from '../rest/rest-client.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const HOUR = 3_600_000;
const hourStart = Math.floor(Date.now() / HOUR) * HOUR;
const TOKEN = (name: string) => `kg_${name}-0123456789-0123456789-0123456789`;
const as = (name: string) => ({ authorization: `Bearer ${TOKEN(name)}` });

let store: EmbeddedStore;
let gw: TestGateway;

/** KairosDB's task JSON: the hourly maximum of `cpu`, dropped when it is at most `threshold` (KairosDB's filter). */
const task = (name: string, threshold: number, interval = { value: 1, unit: 'hours' }) =>
  JSON.stringify({
    name,
    execution_interval: interval,
    rollups: [
      {
        save_as: `probe.${name}`,
        query: {
          start_relative: { value: 1, unit: 'hours' },
          metrics: [
            {
              name: 'cpu',
              aggregators: [
                { name: 'max', sampling: { value: 1, unit: 'hours' } },
                { name: 'filter', filter_op: 'lte', threshold },
              ],
            },
          ],
        },
      },
    ],
  });

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  const timestamps = Array.from({ length: 60 }, (_, i) => hourStart - HOUR + i * 60_000);
  await store.write({
    series: [
      {
        metric: 'cpu',
        tags: { host: 'a' },
        type: 'double',
        ttlSeconds: 0,
        timestamps,
        values: timestamps.map((_, i) => (i === 30 ? 54.12 : 20)),
      },
    ],
  });
  const file = join(tempDir(), 'credentials.json');
  writeFileSync(
    file,
    JSON.stringify({
      tokens: [
        { name: 'writer', hash: tokenHash(TOKEN('writer')), scopes: ['write'] },
        { name: 'reader', hash: tokenHash(TOKEN('reader')), scopes: ['read'] },
        { name: 'operator', hash: tokenHash(TOKEN('operator')), scopes: ['read', 'write', 'admin'] },
        { name: 'busy', hash: tokenHash(TOKEN('busy')), scopes: ['write'] },
      ],
    }),
  );
  gw = await startGateway(store, { CREDENTIALS_FILE: file, ROLLUPS_DELAY_MS: '0', QUOTA_ROLLUP_TASKS: '2' });
});

afterAll(async () => {
  await gw?.close();
  await store?.close();
  removeTempDirs();
});

const tasks = async () => (await store.serviceIndex.keys('_Rollups', 'Config')).length;

describe("a mutation's answer", () => {
  it("shows a write-only principal a task's definition, never its runs, and refuses before anything is created", async () => {
    const before = await tasks();
    const probe = await gw.graphql(
      `mutation { createRollup(task: ${JSON.stringify(task('probe', 54))}) { id status { lastRun { pointsWritten } } } }`,
      undefined,
      as('writer'),
    );
    expect([probe.status, probe.body]).toEqual([
      403,
      {
        errors: [
          {
            message: 'RollupTask.status needs the read scope, which "writer" does not have (it has: write)',
            extensions: { code: 'FORBIDDEN' },
          },
        ],
      },
    ]);
    expect(await tasks()).toBe(before);
    // Through a fragment, on update: the same.
    const viaFragment = await gw.graphql(
      `mutation { updateRollup(id: "none", task: ${JSON.stringify(task('probe', 54))}) { ...Runs } } fragment Runs on RollupTask { id status { failures } }`,
      undefined,
      as('writer'),
    );
    expect([viaFragment.status, viaFragment.body.errors?.[0]?.message]).toEqual([
      403,
      'RollupTask.status needs the read scope, which "writer" does not have (it has: write)',
    ]);
    const created = await gw.graphql(
      `mutation { createRollup(task: ${JSON.stringify(task('probe', 54))}) { id name json executionInterval { value unit } } }`,
      undefined,
      as('writer'),
    );
    expect(created.status).toBe(200);
    expect(await tasks()).toBe(before + 1);
    await gw.graphql(
      `mutation { deleteRollup(id: ${JSON.stringify((created.body.data!['createRollup'] as { id: string }).id)}) }`,
      undefined,
      as('writer'),
    );
  });

  it('shows which gateway ran or holds a task to the admin scope only, on GraphQL and REST', async () => {
    const created = await gw.graphql(
      `mutation { createRollup(task: ${JSON.stringify(task('hourly', 0))}) { id } }`,
      undefined,
      as('operator'),
    );
    const id = (created.body.data!['createRollup'] as { id: string }).id;
    await gw.gateway.rollups.tick();
    const reader = await gw.graphql(
      '{ rollups { status { lastRun { pointsWritten gateway } } } }',
      undefined,
      as('reader'),
    );
    expect([reader.status, reader.body.errors?.[0]?.message]).toEqual([
      403,
      'RollupRun.gateway needs the admin scope, which "reader" does not have (it has: read)',
    ]);
    const readerHeld = await gw.graphql('{ rollups { status { heldBy } } }', undefined, as('reader'));
    expect(readerHeld.status).toBe(403);
    expect(
      (await gw.graphql('{ rollups { status { lastRun { pointsWritten } } } }', undefined, as('reader'))).body,
    ).toEqual({ data: { rollups: [{ status: { lastRun: { pointsWritten: 1 } } }] } });
    const operator = await gw.graphql('{ rollups { status { lastRun { gateway } } } }', undefined, as('operator'));
    expect(operator.body).toEqual({
      data: { rollups: [{ status: { lastRun: { gateway: gw.gateway.rollups.owner } } }] },
    });

    const restStatus = async (who: string) =>
      (
        (await callRest(gw.url, 'GET', `/api/v1/rollups/status/${id}`, { headers: as(who) })).json as {
          kairograph: { last_run: Record<string, unknown> };
        }
      ).kairograph.last_run;
    expect(await restStatus('reader')).not.toHaveProperty('gateway');
    expect(await restStatus('operator')).toMatchObject({ points_written: 1, gateway: gw.gateway.rollups.owner });
    await callRest(gw.url, 'DELETE', `/api/v1/rollups/${id}`, { headers: as('operator') });
  });
});

describe('introspection', () => {
  it('needs the read scope', async () => {
    const anonymous = await gw.graphql('{ __schema { queryType { name } } }');
    expect([anonymous.status, anonymous.body.errors?.[0]]).toEqual([
      401,
      {
        message:
          "__schema needs the read scope, which requests without credentials do not have: send a token (Authorization: Bearer or x-kairograph-token) or a user's password (HTTP Basic)",
        extensions: { code: 'UNAUTHENTICATED' },
      },
    ]);
    expect((await gw.graphql('{ __type(name: "Query") { name } }', undefined, as('writer'))).status).toBe(403);
    expect((await gw.graphql('{ __schema { queryType { name } } }', undefined, as('reader'))).body).toEqual({
      data: { __schema: { queryType: { name: 'Query' } } },
    });
    // __typename describes nothing of the schema.
    expect((await gw.graphql('mutation { __typename }', undefined, as('writer'))).body).toEqual({
      data: { __typename: 'Mutation' },
    });
  });
});

describe('roll-up tasks of one client', () => {
  it('are at most QUOTA_ROLLUP_TASKS, counted per client, freed by a delete', async () => {
    const create = (who: string, name: string) =>
      callRest(gw.url, 'POST', '/api/v1/rollups', { body: task(name, 100), headers: as(who) });
    const first = await create('busy', 'one');
    expect((await create('busy', 'two')).status).toBe(200);
    const refused = await create('busy', 'three');
    expect([
      refused.status,
      refused.json,
      refused.headers['retry-after'],
      refused.headers['ratelimit'],
      refused.headers['ratelimit-policy'],
    ]).toEqual([
      429,
      { errors: ['this client already owns 2 roll-up tasks, its QUOTA_ROLLUP_TASKS: delete one first; retry in 1 s'] },
      '1',
      '"rollup_tasks";r=0;t=1',
      '"rollup_tasks";q=2',
    ]);
    const graphql = await gw.graphql(
      `mutation { createRollup(task: ${JSON.stringify(task('four', 100))}) { id } }`,
      undefined,
      as('busy'),
    );
    expect([graphql.status, graphql.body.errors?.[0]?.extensions]).toEqual([
      429,
      { code: 'RATE_LIMITED', quota: 'rollup_tasks' },
    ]);
    // Another client is not held back by it.
    const other = await create('writer', 'mine');
    expect(other.status).toBe(200);
    await callRest(gw.url, 'DELETE', `/api/v1/rollups/${(first.json as { id: string }).id}`, { headers: as('busy') });
    expect((await create('busy', 'three')).status).toBe(200);
  });

  it('run at most as often as ROLLUPS_MIN_INTERVAL_MS allows', async () => {
    const answer = await callRest(gw.url, 'POST', '/api/v1/rollups', {
      body: task('often', 100, { value: 1, unit: 'seconds' }),
      headers: as('writer'),
    });
    expect([answer.status, answer.json]).toEqual([
      400,
      {
        errors: [
          'execution_interval must be at least 60000 milliseconds (ROLLUPS_MIN_INTERVAL_MS) (got {"value":1,"unit":"seconds"})',
        ],
      },
    ]);
  });
});
