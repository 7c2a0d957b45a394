/**
 * The KairosDB query body → query model translation: times (absolute, relative on a UTC calendar, open ends), tag
 * filters with regex values, per-metric options, both Grafana plugins' shapes, and errors that name the field.
 */
import { describe, expect, it } from 'vitest';
import type { MetricQuery } from '../model/query.js';
import { embeddedKeyLimits } from '../store/embedded/keys.js';
import { withoutFields } from '../../test/support/query-model.js';
import { OPEN_END_MS, parseKairosQuery } from './parse-query.js';

const NOW = Date.UTC(2024, 2, 31, 12, 0, 0, 500);
/** The embedded store's limits at LMDB's default key size: metric names of up to 1964 bytes. */
const LIMITS = embeddedKeyLimits(1978);
const base = {
  metric: 'm',
  tags: [],
  aggregators: [],
  groupBy: [],
  timeZone: 'UTC',
  order: 'asc',
  excludeTags: false,
} as const;

describe('parseKairosQuery', () => {
  it("translates grafana/kairosdb-datasource's panel query", () => {
    const body = {
      start_absolute: 1714557600000,
      end_absolute: 1714561200000,
      cache_time: 0,
      metrics: [
        {
          name: 'sys.cpu.load',
          tags: { host: ['web-1', 'web-2'] },
          limit: 0,
          aggregators: [{ name: 'avg', align_sampling: true, sampling: { value: '30', unit: 'SECONDS' } }],
          group_by: [
            { name: 'tag', tags: ['host'] },
            { name: 'time', group_count: 24, range_size: { value: '1', unit: 'HOURS' } },
            { name: 'value', range_size: 10 },
          ],
        },
      ],
    };
    expect(withoutFields(parseKairosQuery(body, NOW, LIMITS))).toEqual<MetricQuery[]>([
      {
        ...base,
        metric: 'sys.cpu.load',
        range: { startMs: 1714557600000, endMs: 1714561200000 },
        tags: [{ tag: 'host', in: ['web-1', 'web-2'] }],
        aggregators: [{ name: 'avg', params: { align_sampling: true, sampling: { value: '30', unit: 'SECONDS' } } }],
        groupBy: [
          { name: 'tag', params: { tags: ['host'] } },
          { name: 'time', params: { group_count: 24, range_size: { value: '1', unit: 'HOURS' } } },
          { name: 'value', params: { range_size: 10 } },
        ],
      },
    ]);
  });

  it('keeps metrics in request order, each with its own options', () => {
    const queries = parseKairosQuery(
      {
        start_absolute: 5,
        time_zone: 'Europe/Berlin',
        metrics: [
          { name: 'a', limit: 3, order: 'DESC', exclude_tags: true, alias: 'first' },
          { name: 'b', tags: { dc: 'eu' } },
        ],
      },
      NOW,
      LIMITS,
    );
    expect(withoutFields(queries)).toEqual<MetricQuery[]>([
      {
        ...base,
        metric: 'a',
        range: { startMs: 5, endMs: OPEN_END_MS },
        timeZone: 'Europe/Berlin',
        limit: 3,
        order: 'desc',
        excludeTags: true,
        alias: 'first',
      },
      {
        ...base,
        metric: 'b',
        range: { startMs: 5, endMs: OPEN_END_MS },
        timeZone: 'Europe/Berlin',
        tags: [{ tag: 'dc', in: ['eu'] }],
      },
    ]);
  });

  it.each([
    [{ value: 5, unit: 'milliseconds' }, NOW - 5],
    [{ value: '90', unit: 'Seconds' }, NOW - 90_000],
    [{ value: 2, unit: 'HOURS' }, NOW - 7_200_000],
    [{ value: 2, unit: 'weeks' }, NOW - 14 * 86_400_000],
    // A UTC calendar month back from March 31 clamps to the last day of February.
    [{ value: 1, unit: 'months' }, Date.UTC(2024, 1, 29, 12, 0, 0, 500)],
    [{ value: 1, unit: 'years' }, Date.UTC(2023, 2, 31, 12, 0, 0, 500)],
    [{ value: 0, unit: 'days' }, NOW],
  ])('counts start_relative %j back from now on a UTC calendar', (relative, expected) => {
    const [query] = parseKairosQuery(
      { start_relative: relative, time_zone: 'America/New_York', metrics: [{ name: 'm' }] },
      NOW,
      LIMITS,
    );
    expect(query!.range).toEqual({ startMs: expected, endMs: OPEN_END_MS });
  });

  it('lets start_absolute win over start_relative, and counts end_relative back from now too', () => {
    const [query] = parseKairosQuery(
      {
        start_absolute: '1000',
        start_relative: { value: 1, unit: 'days' },
        end_relative: { value: 1, unit: 'minutes' },
        metrics: [{ name: 'm' }],
      },
      NOW,
      LIMITS,
    );
    expect(query!.range).toEqual({ startMs: 1000, endMs: NOW - 60_000 });
  });

  it('takes times up to both ends of ±8.64e15 ms, the one time rule, and ends an open range at its end', () => {
    const [absolute] = parseKairosQuery(
      { start_absolute: -8640000000000000, end_absolute: '8640000000000000', metrics: [{ name: 'm' }] },
      NOW,
      LIMITS,
    );
    expect(absolute!.range).toEqual({ startMs: -8640000000000000, endMs: 8640000000000000 });
    const days = 100_000_000 + Math.floor(NOW / 86_400_000);
    const [relative] = parseKairosQuery(
      { start_relative: { value: days, unit: 'days' }, metrics: [{ name: 'm' }] },
      NOW,
      LIMITS,
    );
    expect(relative!.range).toEqual({ startMs: -8640000000000000 + (NOW % 86_400_000), endMs: 8640000000000000 });
    expect(OPEN_END_MS).toBe(8640000000000000);
  });

  it('turns regex: values into a whole-value regular expression beside the literal values', () => {
    const [query] = parseKairosQuery(
      {
        start_absolute: 0,
        metrics: [
          {
            name: 'm',
            tags: { host: ['web-1', 'regex:db-.*'], dc: 'regex:eu|us', rack: ['regex:a', 'regex:b+'], none: [] },
          },
        ],
      },
      NOW,
      LIMITS,
    );
    expect(withoutFields(query!.tags)).toEqual([
      { tag: 'host', in: ['web-1'], regex: 'db-.*' },
      { tag: 'dc', regex: 'eu|us' },
      { tag: 'rack', regex: '(?:a)|(?:b+)' },
    ]);
  });

  it('accepts cache_time, empty plugin lists and null fields, as Grafana and scripts send them', () => {
    const [query] = parseKairosQuery(
      {
        start_absolute: 0,
        end_absolute: null,
        cache_time: 60,
        plugins: [],
        time_zone: null,
        metrics: [{ name: 'm', tags: null, aggregators: null, limit: null, plugins: [] }],
      },
      NOW,
      LIMITS,
    );
    expect(withoutFields(query)).toEqual({ ...base, range: { startMs: 0, endMs: OPEN_END_MS } });
  });

  it.each<[string, unknown, string]>([
    [
      'a body that is not an object',
      [1],
      'query must be a JSON object with start_absolute or start_relative, and metrics (got [1])',
    ],
    [
      'no start',
      { metrics: [{ name: 'm' }] },
      'query.start_absolute or query.start_relative must be set (got undefined)',
    ],
    [
      'a fractional start',
      { start_absolute: 1.5, metrics: [{ name: 'm' }] },
      'query.start_absolute must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got 1.5)',
    ],
    [
      'a start before -8.64e15',
      { start_absolute: -8640000000000001, metrics: [{ name: 'm' }] },
      'query.start_absolute must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got -8640000000000001)',
    ],
    [
      'a start as text beyond 8.64e15',
      { start_absolute: '8640000000000001', metrics: [{ name: 'm' }] },
      'query.start_absolute must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got "8640000000000001")',
    ],
    [
      'an end beyond 8.64e15',
      { start_absolute: 0, end_absolute: 8640000000000001, metrics: [{ name: 'm' }] },
      'query.end_absolute must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got 8640000000000001)',
    ],
    [
      'an end beyond 2^53',
      { start_absolute: 0, end_absolute: 9007199254740992, metrics: [{ name: 'm' }] },
      'query.end_absolute must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got 9007199254740992)',
    ],
    [
      'an end before the start',
      { start_absolute: 1000, end_absolute: 999, metrics: [{ name: 'm' }] },
      'query.end_absolute must not be before the start time 1000 (got 999)',
    ],
    [
      'a relative end before the start',
      {
        start_relative: { value: 1, unit: 'hours' },
        end_relative: { value: 2, unit: 'hours' },
        metrics: [{ name: 'm' }],
      },
      `query.end_relative must not be before the start time ${NOW - 3_600_000} (got {"value":2,"unit":"hours"})`,
    ],
    [
      'a negative relative value',
      { start_relative: { value: -1, unit: 'days' }, metrics: [{ name: 'm' }] },
      'query.start_relative.value must be a whole number from 0 to 2147483647 (got -1)',
    ],
    [
      'an unknown relative unit',
      { start_relative: { value: 1, unit: 'fortnights' }, metrics: [{ name: 'm' }] },
      'query.start_relative.unit must be one of milliseconds, seconds, minutes, hours, days, weeks, months, years (got "fortnights")',
    ],
    [
      'an unknown relative field',
      { start_relative: { value: 1, unit: 'days', ago: true }, metrics: [{ name: 'm' }] },
      'query.start_relative.ago is not a field of {value, unit} (got true)',
    ],
    [
      'a relative time before year -271821',
      { start_relative: { value: 2_000_000_000, unit: 'years' }, metrics: [{ name: 'm' }] },
      'query.start_relative must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got {"value":2000000000,"unit":"years"})',
    ],
    [
      'a relative time before -8.64e15 by a day',
      { start_relative: { value: 100_000_000 + Math.ceil(NOW / 86_400_000), unit: 'days' }, metrics: [{ name: 'm' }] },
      `query.start_relative must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got {"value":${100_000_000 + Math.ceil(NOW / 86_400_000)},"unit":"days"})`,
    ],
    [
      'a metric name longer than the store keys hold',
      { start_absolute: 0, metrics: [{ name: 'm' }, { name: `${'é'.repeat(982)}a` }] },
      `query.metric[1].name must be at most 1964 bytes in UTF-8, the longest metric name the embedded store's keys hold (it is 1965 bytes) (got "${'é'.repeat(116)}...)`,
    ],
    [
      'an unknown zone',
      { start_absolute: 0, time_zone: 'Mars/Olympus', metrics: [{ name: 'm' }] },
      'query.time_zone must be an IANA time zone such as Europe/Berlin, or an offset such as +05:30 (got "Mars/Olympus")',
    ],
    [
      'a negative cache_time',
      { start_absolute: 0, cache_time: -1, metrics: [{ name: 'm' }] },
      'query.cache_time must be a whole number from 0 to 2147483647 (got -1)',
    ],
    [
      'query plugins',
      { start_absolute: 0, plugins: [{ name: 'p' }], metrics: [{ name: 'm' }] },
      'query.plugins are not supported: Kairograph has no query plugins (got [{"name":"p"}])',
    ],
    ['no metrics', { start_absolute: 0 }, 'query.metrics must be a non-empty array of metric queries (got undefined)'],
    [
      'an empty metrics list',
      { start_absolute: 0, metrics: [] },
      'query.metrics must be a non-empty array of metric queries (got [])',
    ],
    [
      'a metric that is not an object',
      { start_absolute: 0, metrics: ['m'] },
      'query.metric[0] must be an object with a name (got "m")',
    ],
    [
      'a missing name',
      { start_absolute: 0, metrics: [{ name: 'a' }, { tags: {} }] },
      'query.metric[1].name must be a string (got undefined)',
    ],
    [
      'an empty name',
      { start_absolute: 0, metrics: [{ name: '' }] },
      'query.metric[0].name must not be empty (got "")',
    ],
    [
      'tags that are a list',
      { start_absolute: 0, metrics: [{ name: 'm', tags: ['host'] }] },
      'query.metric[0].tags must be an object of tag names to a value or a list of values (got ["host"])',
    ],
    [
      'an empty tag name',
      { start_absolute: 0, metrics: [{ name: 'm', tags: { '': 'a' } }] },
      'query.metric[0].tags must not have an empty tag name (got "")',
    ],
    [
      'an empty tag value',
      { start_absolute: 0, metrics: [{ name: 'm', tags: { host: '' } }] },
      'query.metric[0].tags.host must be a non-empty string (got "")',
    ],
    [
      'an empty tag value in a list',
      { start_absolute: 0, metrics: [{ name: 'm', tags: { host: ['a', ''] } }] },
      'query.metric[0].tags.host[1] must be a non-empty string (got "")',
    ],
    [
      'a null tag value in a list',
      { start_absolute: 0, metrics: [{ name: 'm', tags: { host: [null] } }] },
      'query.metric[0].tags.host[0] must be a non-empty string (got null)',
    ],
    [
      'a tag value that is a number',
      { start_absolute: 0, metrics: [{ name: 'm', tags: { port: 80 } }] },
      'query.metric[0].tags.port must be a string or a list of strings (got 80)',
    ],
    [
      'an invalid regex',
      { start_absolute: 0, metrics: [{ name: 'm', tags: { host: ['regex:('] } }] },
      'query.metric[0].tags.host[0] is not a valid regular expression (Invalid regular expression: /(/: Unterminated group) (got "(")',
    ],
    [
      'a regex with lookahead',
      { start_absolute: 0, metrics: [{ name: 'm', tags: { host: ['regex:web(?=-1)'] } }] },
      'query.metric[0].tags.host[0] cannot be matched in linear time: backreferences, lookahead, lookbehind and repetition counts above 16 are not supported (got "web(?=-1)")',
    ],
    [
      'a regex longer than 1000 characters',
      { start_absolute: 0, metrics: [{ name: 'm', tags: { host: [`regex:${'a'.repeat(1001)}`] } }] },
      `query.metric[0].tags.host[0] must be at most 1000 characters long (it is 1001) (got "${'a'.repeat(116)}...)`,
    ],
    [
      'a negative limit',
      { start_absolute: 0, metrics: [{ name: 'm', limit: -1 }] },
      'query.metric[0].limit must be a whole number from 0 to 2147483647 (got -1)',
    ],
    [
      'an unknown order',
      { start_absolute: 0, metrics: [{ name: 'm', order: 'newest' }] },
      'query.metric[0].order must be asc or desc (got "newest")',
    ],
    [
      'exclude_tags that is not a boolean',
      { start_absolute: 0, metrics: [{ name: 'm', exclude_tags: 'yes' }] },
      'query.metric[0].exclude_tags must be true or false (got "yes")',
    ],
    [
      'an alias that is not a string',
      { start_absolute: 0, metrics: [{ name: 'm', alias: 1 }] },
      'query.metric[0].alias must be a string (got 1)',
    ],
    [
      'aggregators that are an object',
      { start_absolute: 0, metrics: [{ name: 'm', aggregators: { name: 'avg' } }] },
      'query.metric[0].aggregators must be an array of objects with a name (got {"name":"avg"})',
    ],
    [
      'an aggregator without a name',
      { start_absolute: 0, metrics: [{ name: 'm', aggregators: [{ sampling: {} }] }] },
      'query.metric[0].aggregators[0].name must be a non-empty string (got undefined)',
    ],
    [
      'a group-by that is a string',
      { start_absolute: 0, metrics: [{ name: 'm', group_by: ['tag'] }] },
      'query.metric[0].group_by[0] must be an object with a name (got "tag")',
    ],
    [
      'metric plugins',
      { start_absolute: 0, metrics: [{ name: 'm', plugins: [{ name: 'p' }] }] },
      'query.metric[0].plugins are not supported: Kairograph has no query plugins (got [{"name":"p"}])',
    ],
  ])('rejects %s', (_, body, message) => {
    expect(() => parseKairosQuery(body, NOW, LIMITS)).toThrow(message);
  });
});
