/** A failing repair's backoff, and which schema changes the Cassandra store counts and reports as losses. */
import { describe, expect, it } from 'vitest';
import { TABLE_NAMES } from './options.js';
import type { Catalog, Missing } from './schema.js';
import { catalogChange, findLosses, lossMessages, repairDelayMs, SchemaLedger } from './schema-repair.js';

const ids = (suffix = ''): Map<(typeof TABLE_NAMES)[number], string> =>
  new Map(TABLE_NAMES.map((table, i) => [table, `id-${i}${suffix}`]));
const complete: Catalog = { keyspace: true, tables: ids() };
const noKeyspace: Catalog = { keyspace: false, tables: new Map() };
const everything: Missing[] = [{ listed: false }, ...TABLE_NAMES.map((table) => ({ table, listed: false }))];

describe('repairDelayMs', () => {
  it('doubles the reconnect delay with each failure in a row, up to eight times it', () => {
    expect([1, 2, 3, 4, 5, 6, 20].map((failures) => repairDelayMs(1000, failures))).toEqual([
      1000, 2000, 4000, 8000, 8000, 8000, 8000,
    ]);
    expect(repairDelayMs(100, 2)).toBe(200);
  });
});

describe('findLosses', () => {
  it('counts nothing lost when a store creates a keyspace or table that was never there', () => {
    expect(findLosses('kg', undefined, noKeyspace, everything)).toEqual([]);
    expect(findLosses('kg', undefined, complete, [{ table: 'tag_indexed_row_keys', listed: false }])).toEqual([]);
  });

  it('counts what the catalog listed but the node did not serve as lost, even at start', () => {
    const answer = 'keyspace kg does not exist';
    const halfLoaded: Missing[] = [
      { listed: true, answer },
      { table: 'spec', listed: true, answer },
    ];
    expect(findLosses('kg', undefined, complete, halfLoaded)).toEqual([
      {
        object: 'kg',
        kind: 'keyspace',
        by: 'gateway',
        why: 'the catalog listed the keyspace, the node answered: keyspace kg does not exist',
      },
      {
        object: 'kg.spec',
        kind: 'table',
        by: 'gateway',
        why: 'the catalog listed the table, the node answered: keyspace kg does not exist',
      },
    ]);
  });

  it('counts everything it creates again once it had the whole schema, and tables another client made again', () => {
    expect(
      findLosses('kg', complete, { keyspace: true, tables: new Map([...ids()].filter(([t]) => t !== 'row_keys')) }, [
        { table: 'row_keys', listed: false },
      ]),
    ).toEqual([{ object: 'kg.row_keys', kind: 'table', by: 'gateway', why: 'the table was gone from the catalog' }]);
    expect(findLosses('kg', complete, noKeyspace, everything).map((loss) => `${loss.kind} ${loss.object}`)).toEqual([
      'keyspace kg',
      ...TABLE_NAMES.map((t) => `table kg.${t}`),
    ]);
    const remade = new Map(ids());
    remade.set('string_index', 'new-id');
    expect(findLosses('kg', complete, { keyspace: true, tables: remade }, [])).toEqual([
      { object: 'kg.string_index', kind: 'table', by: 'other', why: 'its table id changed from id-2 to new-id' },
    ]);
    expect(findLosses('kg', complete, complete, [])).toEqual([]);
  });
});

describe('lossMessages', () => {
  it('says what was re-created and that data written before may be missing, one line per who made it', () => {
    expect(lossMessages('kg', findLosses('kg', complete, noKeyspace, everything))).toEqual([
      {
        by: 'gateway',
        objects: ['kg', ...TABLE_NAMES.map((t) => `kg.${t}`)],
        message: 're-created kg and its 8 tables: data written before it was lost may be missing',
      },
    ]);
    const remade = new Map(ids());
    remade.set('spec', 'new-id');
    remade.delete('row_keys');
    expect(
      lossMessages(
        'kg',
        findLosses('kg', complete, { keyspace: true, tables: remade }, [{ table: 'row_keys', listed: false }]),
      ),
    ).toEqual([
      {
        by: 'gateway',
        objects: ['kg.row_keys'],
        message: 're-created kg.row_keys: data written before it was lost may be missing',
      },
      {
        by: 'other',
        objects: ['kg.spec'],
        message: 'kg.spec re-created by another client: data written before it was lost may be missing',
      },
    ]);
    expect(lossMessages('kg', [])).toEqual([]);
  });
});

describe('catalogChange', () => {
  it('finds a keyspace or tables gone, or tables made again, and nothing else', () => {
    expect(catalogChange('kg', complete, complete)).toBeUndefined();
    expect(catalogChange('kg', complete, noKeyspace)).toBe('keyspace kg does not exist');
    const without = new Map([...ids()].filter(([t]) => t !== 'spec'));
    expect(catalogChange('kg', complete, { keyspace: true, tables: without })).toBe('table kg.spec does not exist');
    expect(catalogChange('kg', complete, { keyspace: true, tables: ids('b') })).toBe(
      `tables ${TABLE_NAMES.map((t) => `kg.${t}`).join(', ')} were dropped and created again (their ids changed)`,
    );
    const one = new Map(ids());
    one.set('data_points', 'x');
    expect(catalogChange('kg', complete, { keyspace: true, tables: one })).toBe(
      'table kg.data_points was dropped and created again (its id changed)',
    );
  });
});

describe('SchemaLedger', () => {
  it('keeps the latest loss of each object, counts every one, and the time of the last', () => {
    const ledger = new SchemaLedger();
    expect(ledger.status(false, undefined)).toEqual({
      repairing: false,
      attempts: 0,
      failures: 0,
      retryDelayMs: undefined,
      recreatedKeyspaces: 0,
      recreatedTables: 0,
      lastRecreationMs: undefined,
      recreated: [],
    });
    ledger.record(
      findLosses('kg', complete, { keyspace: true, tables: new Map([...ids()].filter(([t]) => t !== 'spec')) }, [
        { table: 'spec', listed: false },
      ]),
      Date.UTC(2026, 0, 1),
    );
    ledger.record(
      findLosses('kg', complete, { keyspace: true, tables: new Map([...ids()].filter(([t]) => t !== 'row_keys')) }, [
        { table: 'row_keys', listed: false },
      ]),
      Date.UTC(2026, 0, 2),
    );
    ledger.record(
      findLosses('kg', complete, { keyspace: true, tables: new Map([...ids()].filter(([t]) => t !== 'spec')) }, [
        { table: 'spec', listed: false },
      ]),
      Date.UTC(2026, 0, 3),
    );
    ledger.attempts = 4;
    ledger.failures = 1;
    expect(ledger.status(true, 2000)).toEqual({
      repairing: true,
      attempts: 4,
      failures: 1,
      retryDelayMs: 2000,
      recreatedKeyspaces: 0,
      recreatedTables: 3,
      lastRecreationMs: Date.UTC(2026, 0, 3),
      recreated: [
        {
          object: 'kg.row_keys',
          at: '2026-01-02T00:00:00.000Z',
          by: 'gateway',
          why: 'the table was gone from the catalog',
        },
        {
          object: 'kg.spec',
          at: '2026-01-03T00:00:00.000Z',
          by: 'gateway',
          why: 'the table was gone from the catalog',
        },
      ],
    });
  });
});
