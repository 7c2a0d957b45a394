/** How the Cassandra store words what is missing of KairosDB's schema, for its log and for clients, and where it sends DDL. */
import type cassandra from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { TABLE_NAMES } from './options.js';
import { ddlHost, describeAnswers, describeCatalog, describeMissing, type Missing } from './schema.js';

const absentKeyspace: Missing[] = [{ listed: false }, ...TABLE_NAMES.map((table) => ({ table, listed: false }))];

describe('describeMissing', () => {
  it('names the keyspace when it is gone, whatever tables go with it', () => {
    expect(describeMissing('kairosdb', absentKeyspace)).toBe('keyspace kairosdb does not exist');
  });

  it('names each missing table with its keyspace', () => {
    expect(describeMissing('kairosdb', [{ table: 'row_keys', listed: false }])).toBe(
      'table kairosdb.row_keys does not exist',
    );
    expect(
      describeMissing('kg', [
        { table: 'data_points', listed: false },
        { table: 'spec', listed: false },
      ]),
    ).toBe('tables kg.data_points, kg.spec do not exist');
  });

  it('says what the node answered about what its catalog lists, each answer once', () => {
    const answer = 'keyspace kg does not exist';
    const halfLoaded: Missing[] = [
      { listed: true, answer },
      { table: 'data_points', listed: true, answer },
      { table: 'spec', listed: true, answer },
    ];
    expect(describeMissing('kg', halfLoaded)).toBe(
      'keyspace kg does not exist, though the catalog lists kg, kg.data_points, kg.spec',
    );
    expect(describeAnswers(halfLoaded)).toBe('keyspace kg does not exist');
    const mixed: Missing[] = [
      { table: 'row_keys', listed: false },
      { table: 'spec', listed: true, answer: 'table kg.spec does not exist' },
    ];
    expect(describeMissing('kg', mixed)).toBe(
      'table kg.row_keys does not exist; table kg.spec does not exist, though the catalog lists kg.spec',
    );
  });

  it('says nothing when nothing is missing', () => {
    expect(describeMissing('kairosdb', [])).toBeUndefined();
    expect(describeAnswers([{ table: 'row_keys', listed: false }])).toBeUndefined();
  });
});

describe('describeCatalog', () => {
  it('says what the catalog lists of the keyspace', () => {
    const all = new Map(TABLE_NAMES.map((table, i) => [table, `id-${i}`]));
    expect(describeCatalog('kg', { keyspace: true, tables: all })).toBe('keyspace kg and its 8 tables');
    const some = new Map([...all].filter(([table]) => table !== 'spec' && table !== 'row_keys'));
    expect(describeCatalog('kg', { keyspace: true, tables: some })).toBe('keyspace kg without kg.row_keys, kg.spec');
    expect(describeCatalog('kg', { keyspace: false, tables: new Map() })).toBe('no keyspace kg');
  });
});

describe('ddlHost', () => {
  const clientOf = (hosts: [string, boolean][]) =>
    ({
      hosts: { values: () => hosts.map(([address, up]) => ({ address, isUp: () => up })) },
    }) as unknown as cassandra.Client;

  it('is the first node by address that is up, whatever order the driver lists them in, so every gateway picks the same', () => {
    const hosts: [string, boolean][] = [
      ['10.0.0.10:9042', true],
      ['10.0.0.9:9042', true],
      ['10.0.0.2:9042', false],
    ];
    expect(ddlHost(clientOf(hosts))!.address).toBe('10.0.0.9:9042');
    expect(ddlHost(clientOf([...hosts].reverse()))!.address).toBe('10.0.0.9:9042');
    expect(ddlHost(clientOf([['10.0.0.2:9042', false]]))).toBeUndefined();
  });
});
