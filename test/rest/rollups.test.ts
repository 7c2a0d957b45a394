/**
 * KairosDB's roll-up API (`/api/v1/rollups`) on the real gateway over the embedded store: create, list, read,
 * update, delete and status with KairosDB's shapes and statuses; bad tasks refused with 400 and a message naming the
 * field; a run's status on REST, on GraphQL and on /metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { startRestGateway, type RestGateway } from './rest-client.js';

const HOUR = 3_600_000;
let store: EmbeddedStore;
let gw: RestGateway;
const hourStart = Math.floor(Date.now() / HOUR) * HOUR;

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  // The two hours before this one, every minute, for two hosts.
  const timestamps = Array.from({ length: 120 }, (_, i) => hourStart - 2 * HOUR + i * 60_000);
  await store.write({
    series: ['a', 'b'].map((host, h) => ({
      metric: 'req.count',
      tags: { host },
      type: 'long' as const,
      ttlSeconds: 0,
      timestamps,
      values: timestamps.map((_, i) => i + h),
    })),
  });
  gw = await startRestGateway(store, { ROLLUPS_DELAY_MS: '0' });
});
afterAll(async () => {
  await gw?.close();
  await store?.close();
  removeTempDirs();
});

const TASK = {
  name: 'requests hourly',
  execution_interval: { value: 1, unit: 'hours' },
  rollups: [
    {
      save_as: 'req.count.hourly',
      query: {
        start_relative: { value: 1, unit: 'hours' },
        metrics: [
          {
            name: 'req.count',
            group_by: [{ name: 'tag', tags: ['host'] }],
            aggregators: [{ name: 'sum', sampling: { value: 1, unit: 'hours' } }],
          },
        ],
      },
    },
  ],
};

describe('/api/v1/rollups', () => {
  it('creates, lists, reads, updates and deletes tasks as KairosDB does', async () => {
    const created = await gw.call('POST', '/api/v1/rollups', { body: TASK });
    expect(created.status).toBe(200);
    const { id } = created.json as { id: string };
    expect(created.json).toEqual({ id, name: 'requests hourly', attributes: { url: `/api/v1/rollups/${id}` } });
    const stored = `{"id":"${id}",${JSON.stringify(TASK).slice(1)}`;
    expect((await gw.call('GET', `/api/v1/rollups/${id}`)).text).toBe(stored);
    expect((await gw.call('GET', '/api/v1/rollups')).text).toBe(`[${stored}]`);

    const updated = await gw.call('PUT', `/api/v1/rollups/${id}`, { body: { ...TASK, name: 'renamed' } });
    expect([updated.status, updated.json]).toEqual([
      200,
      { id, name: 'renamed', attributes: { url: `/api/v1/rollups/${id}` } },
    ]);
    expect(JSON.parse((await gw.call('GET', `/api/v1/rollups/${id}`)).text)).toMatchObject({ id, name: 'renamed' });

    expect((await gw.call('DELETE', `/api/v1/rollups/${id}`)).status).toBe(204);
    expect((await gw.call('GET', '/api/v1/rollups')).text).toBe('[]');
    for (const [method, path] of [
      ['GET', `/api/v1/rollups/${id}`],
      ['PUT', `/api/v1/rollups/${id}`],
      ['DELETE', `/api/v1/rollups/${id}`],
      ['GET', `/api/v1/rollups/status/${id}`],
    ] as const) {
      const answer = await gw.call(method, path, method === 'PUT' ? { body: TASK } : {});
      expect([method, answer.status, answer.json]).toEqual([
        method,
        404,
        { errors: [`${path.includes('status') ? 'Status' : 'Resource'} not found for id ${id}`] },
      ]);
    }
  });

  it.each([
    [{ ...TASK, name: '' }, 'name must be a non-empty string (got "")'],
    [
      { ...TASK, execution_interval: undefined },
      'execution_interval is required: {value, unit}, how often the task runs (got undefined)',
    ],
    [
      { ...TASK, rollups: [{ ...TASK.rollups[0], save_as: '' }] },
      'rollups[0].save_as must be a non-empty metric name (got "")',
    ],
    [
      {
        ...TASK,
        rollups: [
          {
            save_as: 'x',
            query: {
              start_relative: { value: 1, unit: 'hours' },
              metrics: [{ name: 'req.count', aggregators: [{ name: 'div', divisor: 10 }] }],
            },
          },
        ],
      },
      'rollups[0].query.metric[0].aggregators must include a range aggregator (one of avg, count, dev, first, gaps, last, least_squares, max, min, percentile, sum): a roll-up writes one point per range (got ["div"])',
    ],
  ])('refuses a bad task with 400 naming the field: %#', async (body, message) => {
    const answer = await gw.call('POST', '/api/v1/rollups', { body });
    expect([answer.status, answer.json]).toEqual([400, { errors: [message] }]);
    expect((await gw.call('GET', '/api/v1/rollups')).text).toBe('[]');
  });

  it('answers the status of a run on REST (KairosDB shape and its own), GraphQL and /metrics', async () => {
    const { id } = (await gw.call('POST', '/api/v1/rollups', { body: TASK })).json as { id: string };
    await gw.gateway.rollups.tick();
    const status = await gw.call('GET', `/api/v1/rollups/status/${id}`);
    expect(status.status).toBe(200);
    const body = status.json as {
      statuses: Record<string, unknown>[];
      executing_host: string;
      next_scheduled: string;
      kairograph: Record<string, unknown>;
    };
    expect(body.statuses).toEqual([
      {
        metric_name: 'req.count',
        last_executed: expect.any(String),
        data_point_count: 2,
        execution_length: expect.any(Number),
        last_execution_time: expect.any(Number),
      },
    ]);
    expect(body.kairograph).toMatchObject({
      completed_through: hourStart,
      pending_periods: 0,
      failures: 0,
      last_success: {
        period_start: hourStart - HOUR,
        period_end: hourStart,
        points_written: 2,
        gateway: gw.gateway.rollups.owner,
      },
    });

    const graphql = await gw.graphql(
      `{ rollups { id name executionInterval { value unit } rollups { saveAs metrics } status { completedThrough pendingPeriods failures lastSuccess { periodStart pointsWritten error } } } }`,
    );
    expect(graphql.body).toEqual({
      data: {
        rollups: [
          {
            id,
            name: 'requests hourly',
            executionInterval: { value: 1, unit: 'HOURS' },
            rollups: [{ saveAs: 'req.count.hourly', metrics: ['req.count'] }],
            status: {
              completedThrough: hourStart,
              pendingPeriods: 0,
              failures: 0,
              lastSuccess: { periodStart: hourStart - HOUR, pointsWritten: 2, error: null },
            },
          },
        ],
      },
    });

    const metrics = await fetch(`${gw.url}/metrics`).then((r) => r.text());
    expect(metrics).toContain(`kairograph_rollup_runs_total{task="${id}"} 1`);
    expect(metrics).toContain(`kairograph_rollup_points_written_total{task="${id}"} 2`);
    expect(metrics).toContain(`kairograph_rollup_pending_periods{task="${id}"} 0`);
    expect(metrics).toContain(`kairograph_rollup_last_success_timestamp_seconds{task="${id}"} ${hourStart / 1000}`);

    // The roll-up metric is a metric like any: its hourly sums, tagged as KairosDB's save_as tags them.
    const rolled = await gw.call('POST', '/api/v1/datapoints/query', {
      body: {
        start_absolute: hourStart - 2 * HOUR,
        metrics: [{ name: 'req.count.hourly', group_by: [{ name: 'tag', tags: ['host'] }] }],
      },
    });
    const results = (
      rolled.json as { queries: { results: { tags: Record<string, string[]>; values: number[][] }[] }[] }
    ).queries[0]!.results;
    expect(results.map((r) => [r.tags, r.values])).toEqual([
      [{ host: ['a'], saved_from: ['req.count'] }, [[hourStart - HOUR, (60 + 119) * 30]]],
      [{ host: ['b'], saved_from: ['req.count'] }, [[hourStart - HOUR, (61 + 120) * 30]]],
    ]);
    await gw.call('DELETE', `/api/v1/rollups/${id}`);
  });
});
