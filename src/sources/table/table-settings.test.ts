/**
 * A table source of SOURCES_FILE, read through the whole file: its mapping, budget, writability, and a catalogue or a
 * list of entities, and the exact message for each field a bad one gets wrong.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { sourcesFile } from '../../../test/support/sources-file.js';
import { removeTempDirs } from '../../../test/support/temp-dir.js';
import { sourcesFileOptions } from '../../gateway/layer-options.js';
import { loadSourcesFile } from '../sources-file.js';

afterAll(removeTempDirs);

describe('loadSourcesFile: table sources', () => {
  it('reads table sources: the mapping, the budget, writability, and a catalogue or a list of entities', () => {
    const sensors = {
      name: 'sensors',
      layout: 'table',
      keyspace: 'iot',
      table: 'sensor_readings',
      time: 'reading_time',
      bucket: { column: 'day', kind: 'date-text' },
      tags: ['sensor_id'],
      metrics: { 'sensor.value': 'value' },
    };
    const { config } = sourcesFile(
      {
        sources: [
          sensors,
          {
            ...sensors,
            name: 'few',
            timeUnit: 'seconds',
            bucket: { column: 'day', kind: 'date', zone: 'Europe/Berlin' },
            writable: true,
            maxBucketsPerQuery: 10,
            series: [{ sensor_id: 's-1' }],
          },
        ],
      },
      { CASSANDRA_CONTACT_POINTS: 'c-1', DATA_DIR: '/data' },
    );
    const [first, second] = loadSourcesFile(sourcesFileOptions(config));
    expect(first).toEqual({
      name: 'sensors',
      layout: 'table',
      mapping: {
        keyspace: 'iot',
        table: 'sensor_readings',
        time: 'reading_time',
        bucket: { column: 'day', kind: 'date-text', zone: 'UTC' },
        tags: ['sensor_id'],
        metrics: { 'sensor.value': 'value' },
      },
      cassandra: { contactPoints: ['c-1'], localDataCenter: 'datacenter1', keyspace: 'iot' },
      writable: false,
      maxBuckets: 1000,
      catalogue: { kind: 'scan', path: '/data/table-catalogues/sensors', refreshIntervalMs: 600_000 },
    });
    expect(second).toMatchObject({
      writable: true,
      maxBuckets: 10,
      catalogue: { kind: 'static', series: [{ sensor_id: 's-1' }] },
      mapping: { timeUnit: 'seconds', bucket: { kind: 'date', zone: 'Europe/Berlin' } },
    });
  });

  const table = {
    name: 'a',
    layout: 'table',
    keyspace: 'iot',
    table: 't',
    time: 'ts',
    bucket: { column: 'day', kind: 'date-text' },
    tags: ['id'],
    metrics: { m: 'v' },
  };
  it.each([
    ['no keyspace', { ...table, keyspace: undefined }, 'keyspace must be a non-empty string (got nothing)'],
    [
      'a table name that is not a CQL name',
      { ...table, table: 't;drop' },
      'table must be a CQL name: a letter, then letters, digits or _, at most 48 (got "t;drop")',
    ],
    [
      'an unknown bucket kind',
      { ...table, bucket: { column: 'day', kind: 'week' } },
      'bucket.kind must be one of date-text, date, epoch-day, epoch-hour, fixed (got "week")',
    ],
    [
      'a fixed bucket without a width',
      { ...table, bucket: { column: 'b', kind: 'fixed' } },
      'bucket: a fixed bucket needs widthMs, a positive safe integer of milliseconds: undefined',
    ],
    [
      'an unknown zone',
      { ...table, bucket: { column: 'day', kind: 'date-text', zone: 'Mars/Olympus' } },
      'bucket: unknown time zone "Mars/Olympus" for a date-text bucket (expected an IANA name such as "Europe/Berlin")',
    ],
    [
      'an unknown time unit',
      { ...table, timeUnit: 'minutes' },
      'timeUnit must be one of milliseconds, seconds, microseconds (got "minutes")',
    ],
    [
      'no metrics',
      { ...table, metrics: {} },
      'metrics must map metric names to value columns, e.g. {"sensor.value": "value"} (got {})',
    ],
    [
      'a listed entity without its tag',
      { ...table, series: [{ room: 'x' }] },
      'series[0].id must be a string (got nothing)',
    ],
    [
      'a misspelt field',
      { ...table, metric: {} },
      '"metric" is not a field of a table source (its fields: name, layout, keyspace, table, time, timeUnit, bucket, tags, metrics, contactPoints, localDataCenter, writable, maxBucketsPerQuery, catalogue, catalogueRefreshSeconds, series)',
    ],
  ])('refuses a table source with %s, naming the field', (_, source, message) => {
    expect(() =>
      loadSourcesFile(sourcesFileOptions(sourcesFile({ sources: [JSON.parse(JSON.stringify(source))] }).config)),
    ).toThrow(`SOURCES_FILE source "a": ${message}`);
  });
});
