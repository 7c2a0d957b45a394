/** What every request is told while the store re-creates KairosDB's schema, or waits for it. */
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../model/errors.js';
import { schemaLostError } from './schema-loss.js';

describe('schemaLostError', () => {
  it('tells clients the store is unavailable, why, and what it is doing about it', () => {
    const error = schemaLostError('keyspace kairosdb does not exist');
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error.status).toBe(503);
    expect(error.message).toBe(
      "the cassandra store is unavailable: keyspace kairosdb does not exist; re-creating KairosDB's tables",
    );
    expect(error.headers).toEqual({ 'retry-after': '1' });
    const failed = schemaLostError('table kairosdb.spec does not exist', {
      lastFailure: 'no Cassandra host answered',
      retryAfterSeconds: 4,
    });
    expect(failed.message).toBe(
      "the cassandra store is unavailable: table kairosdb.spec does not exist; re-creating KairosDB's tables (last attempt failed: no Cassandra host answered)",
    );
    expect(failed.headers).toEqual({ 'retry-after': '4' });
    expect(schemaLostError('keyspace kairosdb does not exist', { creating: false }).message).toBe(
      "the cassandra store is unavailable: keyspace kairosdb does not exist; waiting for KairosDB's tables to be created (CASSANDRA_CREATE_SCHEMA is false)",
    );
  });
});
