/**
 * fast-check generators of hostile and careless input for both front ends: values of every JSON type where a field
 * expects one, names that are special to JavaScript objects, times at and past the edges of the representable
 * range, regexes that explode a backtracking matcher, oversized keys, and the near-valid shapes that reach deep
 * into the parsers. The suites feed them to the real server and check invariants, not exact answers.
 */
import fc from 'fast-check';

/** Names that an object-backed map gets wrong: `__proto__` sets the prototype, the others shadow its methods. */
export const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
];

const AGGREGATORS = [
  'avg',
  'count',
  'dev',
  'diff',
  'div',
  'filter',
  'first',
  'gaps',
  'last',
  'least_squares',
  'max',
  'min',
  'percentile',
  'rate',
  'sampler',
  'save_as',
  'scale',
  'score',
  'sma',
  'sum',
  'trim',
  'nope',
];
const UNITS = [
  'milliseconds',
  'seconds',
  'minutes',
  'hours',
  'days',
  'weeks',
  'months',
  'years',
  'MINUTES',
  'fortnights',
  '',
];

/** Any JSON value, small. */
export const anyJson = fc.jsonValue({ maxDepth: 3 });

/** A tag or metric name: plain, JavaScript-special, unicode, empty, or very long. */
export const name = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('host', 'dc', 'web-1', 'm.cpu') },
  { weight: 3, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
  { weight: 2, arbitrary: fc.string({ minLength: 0, maxLength: 12 }) },
  // Too long for LMDB's keys (2,100) and for Cassandra's (70,000): refused up front with the store's key limits.
  { weight: 1, arbitrary: fc.constantFrom('', 'é', '日本', '\u0000', 'a'.repeat(2_100), 'b'.repeat(70_000)) },
);

/** Epoch ms and things that are not: the JS Date range edge, beyond it, fractions, strings, nothing. */
export const timestamp = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1_700_000_000_000, max: 1_700_000_600_000 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      0,
      -1,
      8.64e15,
      -8.64e15,
      8.64e15 + 1,
      -8.64e15 - 1,
      9_007_199_254_740_991,
      9.3e18,
      1.5,
      -0.5,
    ),
  },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.constant('1700000000000'),
      fc.constant('now'),
      fc.constant(null),
      fc.constant(true),
      fc.constant(Number.MAX_VALUE),
    ),
  },
);

export const value = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(
    '9223372036854775807',
    '9223372036854775808',
    '-9223372036854775809',
    '1e400',
    '',
    'abc',
    '1.5',
    1e308,
  ),
  fc.string({ maxLength: 8 }),
  fc.boolean(),
  fc.constant(null),
  fc.constant({ real: 1 }),
);

/** Tags as an object: ordinary, prototype-special and oversized names and values, or not an object at all. */
export const tags = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.dictionary(name, fc.oneof(name, fc.integer(), fc.constant(null)), { minKeys: 0, maxKeys: 4 }),
  },
  { weight: 1, arbitrary: anyJson },
);

/** A KairosDB ingest metric object, usually close to valid. */
export const ingestMetric = fc.record(
  {
    name,
    tags,
    type: fc.constantFrom(undefined, 'long', 'double', 'string', 'complex', 7),
    ttl: fc.constantFrom(undefined, 0, 60, -1, 1e12, 'x'),
    timestamp: fc.option(timestamp, { nil: undefined }),
    value: fc.option(value, { nil: undefined }),
    datapoints: fc.option(
      fc.array(fc.oneof({ weight: 6, arbitrary: fc.tuple(timestamp, value) }, { weight: 1, arbitrary: anyJson }), {
        maxLength: 6,
      }),
      { nil: undefined },
    ),
  },
  { requiredKeys: ['name'] },
);

export const ingestBody = fc.oneof(
  { weight: 6, arbitrary: fc.array(ingestMetric, { minLength: 1, maxLength: 3 }) },
  { weight: 1, arbitrary: ingestMetric },
  { weight: 1, arbitrary: anyJson },
);

/** A regex for a tag filter: useful, catastrophic for a backtracking matcher, beyond the linear engine, or broken. */
export const regex = fc.oneof(
  fc.constantFrom(
    'web-.*',
    '(a+)+$',
    '(a|a)*b',
    '(a|aa)+$',
    '(.*a){12}',
    '(a)\\1',
    'x(?=y)',
    '\\p{L}+',
    '(',
    '[',
    '*',
    'a{99999}',
    '',
  ),
  fc.stringMatching(/^[a(|)+*?.\\[\]{}^$-]{0,12}$/),
);

const sampling = fc.record(
  {
    value: fc.oneof(fc.integer({ min: -2, max: 1000 }), fc.constantFrom('1', 'x', 0.5, null)),
    unit: fc.constantFrom(...UNITS),
  },
  { requiredKeys: [] },
);

export const aggregator = fc.record(
  {
    name: fc.constantFrom(...AGGREGATORS),
    sampling,
    align_sampling: fc.boolean(),
    align_start_time: fc.boolean(),
    percentile: fc.oneof(fc.double({ min: -1, max: 2, noNaN: true }), fc.constant('0.5')),
    divisor: fc.constantFrom(0, 2, -1, 'x'),
    factor: fc.double({ noNaN: true }),
    size: fc.integer({ min: -1, max: 20 }),
    unit: fc.constantFrom(...UNITS),
    metric_name: fc.constantFrom('saved', '', '__proto__'),
    filter_op: fc.constantFrom('lt', 'lte', 'gt', 'gte', 'equal', 'x'),
    threshold: fc.double({ noNaN: true }),
    trim: fc.constantFrom('first', 'last', 'both', 'x'),
  },
  { requiredKeys: ['name'] },
);

export const groupBy = fc.oneof(
  fc.record({ name: fc.constant('tag'), tags: fc.array(name, { maxLength: 3 }) }),
  fc.record({ name: fc.constant('time'), range_size: sampling, group_count: fc.integer({ min: -1, max: 100 }) }),
  fc.record({ name: fc.constant('value'), range_size: fc.oneof(fc.integer({ min: -1, max: 1000 }), fc.constant(0.5)) }),
  fc.record({ name: fc.constant('bin'), bins: fc.array(fc.double({ noNaN: true }), { maxLength: 4 }) }),
  fc.record({ name: fc.constantFrom('nope', '__proto__') }),
);

const queryTags = fc.dictionary(
  name,
  fc.oneof(
    name,
    fc.array(
      fc.oneof(
        name,
        regex.map((r) => `regex:${r}`),
      ),
      { maxLength: 3 },
    ),
    fc.constant(7),
  ),
  { maxKeys: 3 },
);

export const queryMetric = fc.record(
  {
    name,
    tags: queryTags,
    aggregators: fc.array(aggregator, { maxLength: 3 }),
    group_by: fc.array(groupBy, { maxLength: 2 }),
    limit: fc.constantFrom(undefined, 0, 5, -1, 1e12),
    order: fc.constantFrom(undefined, 'asc', 'desc', 'DESC', 'sideways'),
    exclude_tags: fc.constantFrom(undefined, true, 'yes'),
  },
  { requiredKeys: ['name'] },
);

export const queryBody = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      {
        start_absolute: timestamp,
        end_absolute: fc.option(timestamp, { nil: undefined }),
        start_relative: fc.record({
          value: fc.oneof(fc.integer({ min: -5, max: 100_000_000 }), fc.constant('1')),
          unit: fc.constantFrom(...UNITS),
        }),
        time_zone: fc.constantFrom(undefined, 'UTC', 'Europe/Berlin', 'Mars/Olympus', ''),
        metrics: fc.array(queryMetric, { minLength: 1, maxLength: 3 }),
      },
      { requiredKeys: ['metrics'] },
    ),
  },
  { weight: 1, arbitrary: anyJson },
);

/** GraphQL variables for `series`: each of the right type or not, so coercion, validation and the engine all answer. */
export const seriesVariables = fc.record({
  metric: fc.oneof({ weight: 5, arbitrary: name }, { weight: 1, arbitrary: anyJson }),
  from: fc.oneof(
    timestamp,
    fc.constantFrom('now-1h', 'now-99999999y', 'now/d', '2024-05-01T10:00:00Z', 'yesterday', '-8640000000000001'),
  ),
  to: fc.option(fc.oneof(timestamp, fc.constant('now')), { nil: null }),
  where: fc.option(
    fc.array(
      fc.oneof(
        fc.record({ tag: name, eq: name }),
        fc.record({ tag: name, in: fc.array(name, { maxLength: 3 }) }),
        fc.record({ tag: name, regex }),
        fc.record({ tag: name, notEq: name }),
        anyJson,
      ),
      { maxLength: 3 },
    ),
    { nil: null },
  ),
  timeZone: fc.option(fc.constantFrom('UTC', 'Europe/Berlin', 'Mars/Olympus', ''), { nil: null }),
  limit: fc.option(fc.oneof(fc.integer({ min: -1, max: 10 }), fc.constant(2 ** 40), fc.constant('x')), { nil: null }),
  fill: fc.option(fc.constantFrom('NONE', 'NULL', 'ZERO', 'PREVIOUS', 'SIDEWAYS'), { nil: null }),
});

/** GraphQL variables for `addPoints`. */
export const addPointsVariables = fc.record({
  series: fc.oneof(
    {
      weight: 6,
      arbitrary: fc.array(
        fc.record(
          {
            metric: name,
            tags: fc.oneof(fc.array(fc.record({ name, value: name }), { maxLength: 4 }), anyJson),
            type: fc.constantFrom(undefined, 'LONG', 'DOUBLE', 'STRING', 'COMPLEX', 'long'),
            ttl: fc.constantFrom(undefined, 0, 60, -1, 2 ** 31),
            points: fc.array(fc.record({ time: timestamp, value }), { maxLength: 4 }),
          },
          { requiredKeys: ['metric', 'tags', 'points'] },
        ),
        { minLength: 1, maxLength: 3 },
      ),
    },
    { weight: 1, arbitrary: anyJson },
  ),
});
