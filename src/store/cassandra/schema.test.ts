/** How the Cassandra store words what is missing of KairosDB's schema, for its log and for clients. */
import { describe, expect, it } from 'vitest';
import { TABLE_NAMES } from './options.js';
import { describeMissingSchema } from './schema.js';

describe('describeMissingSchema', () => {
  it('names the keyspace when it is gone, whatever tables go with it', () => {
    expect(describeMissingSchema('kairosdb', { keyspace: true, tables: TABLE_NAMES })).toBe('keyspace kairosdb does not exist');
  });

  it('names each missing table with its keyspace', () => {
    expect(describeMissingSchema('kairosdb', { keyspace: false, tables: ['row_keys'] })).toBe('table kairosdb.row_keys does not exist');
    expect(describeMissingSchema('kg', { keyspace: false, tables: ['data_points', 'spec'] })).toBe('tables kg.data_points, kg.spec do not exist');
  });

  it('says nothing when nothing is missing', () => {
    expect(describeMissingSchema('kairosdb', { keyspace: false, tables: [] })).toBeUndefined();
  });
});
