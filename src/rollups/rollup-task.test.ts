/**
 * Roll-up task JSON as KairosDB writes and reads it: the stored text (id first, compact), KairosDB's own tasks read
 * back, and the invalid tasks KairosDB refuses (its test resources' cases) refused here with messages naming the field.
 */
import { describe, expect, it } from 'vitest';
import { embeddedKeyLimits } from '../store/embedded/keys.js';
import { parseRollupTask } from './rollup-task.js';
import { withoutFields } from '../../test/support/query-model.js';

const limits = embeddedKeyLimits(1978);
const parse = (task: unknown, id?: string) =>
  parseRollupTask(typeof task === 'string' ? task : JSON.stringify(task), {
    limits,
    nowMs: Date.UTC(2026, 0, 1),
    ...(id ? { id } : {}),
  });

const query = (aggregators: unknown[], extra: Record<string, unknown> = {}) => ({
  cache_time: 0,
  start_relative: { value: '1', unit: 'hours' },
  metrics: [
    {
      name: 'http.query_time',
      limit: 10000,
      tags: { host: ['foo', 'bar'] },
      group_by: [{ name: 'tag', tags: ['dc'] }],
      aggregators,
    },
  ],
  ...extra,
});
const task = (overrides: Record<string, unknown> = {}) => ({
  name: 'Rollup1',
  execution_interval: { value: 1, unit: 'hours' },
  rollups: [
    { save_as: 'http.query_time.rollup', query: query([{ name: 'sum', sampling: { value: 10, unit: 'minutes' } }]) },
  ],
  ...overrides,
});

describe('roll-up tasks', () => {
  it('stores the given JSON compact with a new id first, and appends save_as to each query as KairosDB does', () => {
    const parsed = parse(task());
    expect(parsed.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(parsed.json).toBe(`{"id":"${parsed.id}",${JSON.stringify(task()).slice(1)}`);
    expect(parsed).toMatchObject({ name: 'Rollup1', executionInterval: { value: 1, unit: 'HOURS' } });
    expect(parsed.rollups).toHaveLength(1);
    expect(parsed.rollups[0]!.saveAs).toBe('http.query_time.rollup');
    expect(withoutFields(parsed.rollups[0]!.queries[0]!.aggregators)).toEqual([
      { name: 'sum', params: { sampling: { value: 10, unit: 'minutes' } } },
      { name: 'save_as', params: { metric_name: 'http.query_time.rollup' } },
    ]);
    expect(withoutFields(parsed.rollups[0]!.queries[0]!.tags)).toEqual([{ tag: 'host', in: ['foo', 'bar'] }]);
  });

  it('keeps the id a task JSON carries (KairosDB stored it so), and the path id on an update', () => {
    const stored = `{"id":"46f67574-011c-46ba-bae2-1872239ec404","name":"Rollup2","execution_interval":{"value":1,"unit":"minutes"},"rollups":[{"save_as":"foo_rollup","query":{"cache_time":0,"start_relative":{"value":"1","unit":"hours"},"metrics":[{"name":"foo","aggregators":[{"name":"sum","sampling":{"value":24,"unit":"hours"}}]}]}}]}`;
    const parsed = parse(stored);
    expect(parsed.id).toBe('46f67574-011c-46ba-bae2-1872239ec404');
    expect(parsed.json).toBe(stored);
    const updated = parse(stored, 'other-id');
    expect(updated.id).toBe('other-id');
    expect(updated.json).toBe(stored.replace('46f67574-011c-46ba-bae2-1872239ec404', 'other-id'));
  });

  it("applies a roll-up's time_zone to its queries", () => {
    const parsed = parse(
      task({
        rollups: [
          {
            save_as: 'x.rollup',
            time_zone: 'Europe/Berlin',
            query: query([{ name: 'avg', sampling: { value: 1, unit: 'days' } }]),
          },
        ],
      }),
    );
    expect(parsed.rollups[0]).toMatchObject({ timeZone: 'Europe/Berlin', queries: [{ timeZone: 'Europe/Berlin' }] });
  });

  it.each([
    ['an empty name', task({ name: '' }), 'name must be a non-empty string (got "")'],
    ['no name', task({ name: undefined }), 'name must be a non-empty string (got undefined)'],
    [
      'no execution_interval',
      task({ execution_interval: undefined }),
      'execution_interval is required: {value, unit}, how often the task runs (got undefined)',
    ],
    [
      'a bad interval unit',
      task({ execution_interval: { value: 1, unit: 'fortnights' } }),
      'execution_interval.unit must be one of milliseconds, seconds, minutes, hours, days, weeks, months, years (got "fortnights")',
    ],
    [
      'an interval under a second',
      task({ execution_interval: { value: 10, unit: 'milliseconds' } }),
      'execution_interval must be at least 1000 milliseconds (got {"value":10,"unit":"milliseconds"})',
    ],
    ['no rollups', task({ rollups: [] }), 'rollups must be a non-empty array of {save_as, query} (got [])'],
    [
      'an empty save_as',
      task({ rollups: [{ save_as: '', query: query([{ name: 'sum' }]) }] }),
      'rollups[0].save_as must be a non-empty metric name (got "")',
    ],
    [
      'save_as the metric it rolls up',
      task({ rollups: [{ save_as: 'http.query_time', query: query([{ name: 'sum' }]) }] }),
      'rollups[0].save_as must differ from the metric it rolls up (rollups[0].query.metric[0].name) (got "http.query_time")',
    ],
    [
      'a query without a start time',
      task({ rollups: [{ save_as: 'r', query: { metrics: [{ name: 'm', aggregators: [{ name: 'sum' }] }] } }] }),
      'rollups[0].query.start_absolute or rollups[0].query.start_relative must be set (got undefined)',
    ],
    [
      'no range aggregator',
      task({ rollups: [{ save_as: 'r', query: query([{ name: 'div', divisor: 10 }]) }] }),
      'rollups[0].query.metric[0].aggregators must include a range aggregator (one of avg, count, dev, first, gaps, last, least_squares, max, min, percentile, sum): a roll-up writes one point per range (got ["div"])',
    ],
    [
      'a bad aggregator parameter',
      task({ rollups: [{ save_as: 'r', query: query([{ name: 'sum', sampling: { value: 0, unit: 'hours' } }]) }] }),
      'rollups[0].query.metric[0].aggregators[0].sampling.value must be a whole number from 1 to 2147483647 (got 0)',
    ],
    [
      'text that is not JSON',
      '{"name": ',
      'task is not valid JSON: unexpected end of input, expected a value at line 1, column 10 (got "{\\"name\\": ")',
    ],
  ])('refuses %s, naming the field', (_, body, message) => {
    expect(() => parse(body)).toThrow(message);
  });
});
