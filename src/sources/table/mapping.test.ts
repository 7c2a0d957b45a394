/**
 * The mapping check against schema rows: tags of every kind (partition key, clustering before and after the time,
 * regular), time column types and units, SAI detection, and each refusal's exact message.
 */
import { describe, expect, it } from 'vitest';
import { checkMapping, rowTags, type SchemaColumn, type SchemaIndex, type TableMapping } from './mapping.js';
import { indexedFilter } from './table-source.js';

const col = (
  name: string,
  kind: SchemaColumn['kind'],
  position: number,
  type: string,
  order: SchemaColumn['order'] = 'none',
): SchemaColumn => ({ name, kind, position, type, order });

/** `PRIMARY KEY ((device, day), channel, ts, probe)` with regular columns unit and v. */
const COLUMNS: SchemaColumn[] = [
  col('device', 'partition_key', 0, 'text'),
  col('day', 'partition_key', 1, 'text'),
  col('channel', 'clustering', 0, 'text', 'asc'),
  col('ts', 'clustering', 1, 'timestamp', 'desc'),
  col('probe', 'clustering', 2, 'int', 'asc'),
  col('unit', 'regular', -1, 'text'),
  col('v', 'regular', -1, 'double'),
  col('label', 'static', -1, 'text'),
];
const MAPPING: TableMapping = {
  keyspace: 'ks',
  table: 't',
  time: 'ts',
  bucket: { column: 'day', kind: 'date-text', zone: 'UTC' },
  tags: ['device', 'channel', 'probe', 'unit'],
  metrics: { m: 'v' },
};

describe('checkMapping', () => {
  it('sorts tags into partition, prefix (before the time), after-time and regular ones', () => {
    const checked = checkMapping(MAPPING, COLUMNS, 0);
    expect(checked.partitionKey.map((c) => c.name)).toEqual(['device', 'day']);
    expect(checked.prefixTags.map((c) => c.name)).toEqual(['channel']);
    expect(checked.afterTimeTags.map((c) => c.name)).toEqual(['probe']);
    expect(checked.regularTags.map((c) => c.name)).toEqual(['unit']);
    expect(rowTags(checked).map((c) => c.name)).toEqual(['probe', 'unit']);
    expect(checked.time.type).toBe('timestamp');
    expect(checked.indexedTags).toEqual([]);
  });

  it('finds SAI indexes on tag columns however they were created, and ignores other indexes', () => {
    const indexes: SchemaIndex[] = [
      { name: 'a', className: 'sai', target: 'channel' },
      { name: 'b', className: 'org.apache.cassandra.index.sai.StorageAttachedIndex', target: '"unit"' },
      { name: 'c', className: undefined, target: 'device' },
      { name: 'd', className: 'StorageAttachedIndex', target: 'v' },
      { name: 'e', className: 'org.apache.cassandra.index.sasi.SASIIndex', target: 'probe' },
    ];
    expect(checkMapping(MAPPING, COLUMNS, 0, indexes).indexedTags).toEqual(['channel', 'unit']);
  });

  it.each([
    ['bigint', 'seconds'],
    ['bigint', undefined],
    ['timeuuid', undefined],
  ] as const)('takes a %s time column (unit %s)', (type, unit) => {
    const columns = COLUMNS.map((c) => (c.name === 'ts' ? { ...c, type } : c));
    const checked = checkMapping({ ...MAPPING, ...(unit ? { timeUnit: unit } : {}) }, columns, 0);
    expect([checked.time.type, checked.time.unit]).toEqual([type, unit ?? 'milliseconds']);
  });

  it.each([
    [
      'a time column of another type',
      { time: 'ts' },
      { ts: 'text' },
      'time column "ts" has type text; it must be timestamp, bigint or timeuuid',
    ],
    [
      'a time unit for a timestamp column',
      { timeUnit: 'seconds' },
      {},
      'time column "ts" has type timestamp, which carries its own unit: timeUnit is for a bigint time column',
    ],
    [
      'a time column that is not clustering',
      { time: 'unit', tags: ['device', 'channel', 'probe'] },
      {},
      'time column "unit" must be a clustering column of ks.t (it is a regular column)',
    ],
    [
      'a clustering column before the time left out of the tags',
      { tags: ['device', 'probe'] },
      {},
      'clustering column "channel" of ks.t comes before the time column "ts" and must be a tag (add it to tags): a read of a time range pins it by equality',
    ],
    [
      'a clustering column after the time left out of the tags',
      { tags: ['device', 'channel'] },
      {},
      'ks.t has clustering columns after the time column (probe): several rows per time cannot be one series unless each is a tag (add it to tags)',
    ],
    [
      'a static column as a tag',
      { tags: [...MAPPING.tags, 'label'] },
      {},
      'tag column "label" is a static column of ks.t: a tag must be a partition key, clustering or regular column',
    ],
    ['a value column that is also a tag', { metrics: { m: 'unit' } }, {}, 'metric "m"\'s column "unit" is also a tag'],
    [
      'a tag of a type no tag can be',
      {},
      { unit: 'blob' },
      'tag column "unit" has type blob; a tag must be text, varchar, ascii, int, bigint, smallint, tinyint, uuid, timeuuid, boolean',
    ],
  ])('refuses %s, naming the column', (_, change, types, message) => {
    const columns = COLUMNS.map((c) =>
      (types as Record<string, string>)[c.name] ? { ...c, type: (types as Record<string, string>)[c.name]! } : c,
    );
    expect(() => checkMapping({ ...MAPPING, ...change } as TableMapping, columns, 0)).toThrow(message);
  });

  it('refuses tags before the time column in mixed clustering orders (they could not be skipped through)', () => {
    const columns = [
      ...COLUMNS.filter((c) => c.name !== 'ts'),
      col('room', 'clustering', 1, 'text', 'desc'),
      col('ts', 'clustering', 2, 'timestamp'),
    ].map((c) => (c.name === 'probe' ? { ...c, position: 3 } : c));
    expect(() => checkMapping({ ...MAPPING, tags: [...MAPPING.tags, 'room'] }, columns, 0)).toThrow(
      'clustering columns "channel", "room" of ks.t have mixed clustering orders',
    );
  });
});

describe('indexedFilter', () => {
  const exact = (entries: [string, string[]][]) => Object.assign(() => true, { exact: new Map(entries) });
  it('asks the index of the pinned tag with the fewest values, and none beyond 32 values or without a pin', () => {
    const checked = { indexedTags: ['channel', 'unit'] };
    expect(
      indexedFilter(
        checked,
        exact([
          ['channel', ['a', 'b']],
          ['unit', ['V']],
          ['device', ['d']],
        ]),
      ),
    ).toEqual({ tag: 'unit', values: ['V'] });
    expect(indexedFilter(checked, exact([['device', ['d']]]))).toBeUndefined();
    expect(indexedFilter(checked, exact([['channel', Array.from({ length: 33 }, (_, i) => `c${i}`)]]))).toBeUndefined();
    expect(
      indexedFilter(
        checked,
        Object.assign(() => true, {}),
      ),
    ).toBeUndefined();
  });
});
