/**
 * Which driver failures mean "Cassandra is unavailable" or "a watched schema is gone" (KairosDB's, here), and the
 * one-line messages clients get for them.
 */
import cassandra from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../model/errors.js';
import { TABLE_NAMES } from '../cassandra/options.js';
import { schemaLoss, storeError } from './store-errors.js';

const { errors, types } = cassandra;

describe('storeError', () => {
  it('names every host and its own error when no host answered, without stack traces', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9042'), { code: 'ECONNREFUSED' });
    const timedOut = new errors.OperationTimedOutError(
      'The host 10.0.0.2:9042 did not reply before timeout 12000 ms',
      '10.0.0.2:9042',
    );
    const mapped = storeError(
      new errors.NoHostAvailableError({ '127.0.0.1:9042': refused, '10.0.0.2:9042': timedOut }),
    );
    expect(mapped).toBeInstanceOf(StoreUnavailableError);
    expect((mapped as StoreUnavailableError).message).toBe(
      'the cassandra store is unavailable: no Cassandra host answered (127.0.0.1:9042: connect ECONNREFUSED 127.0.0.1:9042; 10.0.0.2:9042: The host 10.0.0.2:9042 did not reply before timeout 12000 ms)',
    );
    expect((mapped as StoreUnavailableError).code).toBe('STORE_UNAVAILABLE');
    // The store connects again a reconnect delay later: clients are told to wait that long, in whole seconds.
    expect((mapped as StoreUnavailableError).headers).toEqual({ 'retry-after': '1' });
    expect((storeError(new errors.NoHostAvailableError({}), 3) as StoreUnavailableError).headers).toEqual({
      'retry-after': '3',
    });
  });

  it("leads with Cassandra's refusal, naming the consistency, when the hosts tried answered with too few replicas alive", () => {
    // As the driver's reader words an UnavailableException (the node's own text is replaced by it).
    const refusal = () =>
      new errors.ResponseError(
        types.responseErrorCodes.unavailableException,
        'Not enough replicas available for query at consistency QUORUM (2 required but only 1 alive)',
      );
    const mapped = storeError(new errors.NoHostAvailableError({ '127.0.0.3:9042': refusal() }));
    expect((mapped as StoreUnavailableError).message).toBe(
      'the cassandra store is unavailable: Not enough replicas available for query at consistency QUORUM (2 required but only 1 alive) (said 127.0.0.3:9042)',
    );
    const twice = storeError(
      new errors.NoHostAvailableError({ '127.0.0.3:9042': refusal(), '127.0.0.2:9042': refusal() }),
    );
    expect((twice as StoreUnavailableError).message).toBe(
      'the cassandra store is unavailable: Not enough replicas available for query at consistency QUORUM (2 required but only 1 alive) (said 127.0.0.3:9042, 127.0.0.2:9042)',
    );
    // One host refused, another did not answer: each says its own.
    const mixed = storeError(
      new errors.NoHostAvailableError({
        '127.0.0.3:9042': refusal(),
        '127.0.0.2:9042': new Error('connect ECONNREFUSED 127.0.0.2:9042'),
      }),
    );
    expect((mixed as StoreUnavailableError).message).toBe(
      'the cassandra store is unavailable: no Cassandra host answered (127.0.0.3:9042: Not enough replicas available for query at consistency QUORUM (2 required but only 1 alive); 127.0.0.2:9042: connect ECONNREFUSED 127.0.0.2:9042)',
    );
  });

  it('treats timeouts and unavailable or overloaded replicas as unavailability', () => {
    const codes = types.responseErrorCodes;
    for (const error of [
      new errors.OperationTimedOutError(
        'The host 127.0.0.1:9042 did not reply before timeout 1000 ms',
        '127.0.0.1:9042',
      ),
      new errors.ResponseError(codes.unavailableException, 'Cannot achieve consistency level QUORUM'),
      new errors.ResponseError(codes.readTimeout, 'Operation timed out - received only 0 responses.'),
      new errors.ResponseError(codes.overloaded, 'Server is overloaded'),
    ]) {
      const mapped = storeError(error);
      expect(mapped).toBeInstanceOf(StoreUnavailableError);
      expect((mapped as Error).message).toBe(`the cassandra store is unavailable: ${error.message}`);
    }
  });

  it('passes statement errors through: they are bugs, not outages', () => {
    const syntax = new errors.ResponseError(
      types.responseErrorCodes.syntaxError,
      "line 1:0 no viable alternative at input 'SELEC'",
    );
    expect(storeError(syntax)).toBe(syntax);
    const plain = new TypeError('Not a valid blob');
    expect(storeError(plain)).toBe(plain);
  });
});

describe('schemaLoss', () => {
  const codes = types.responseErrorCodes;
  const invalid = (message: string) => new errors.ResponseError(codes.invalid, message);
  /** As the driver gives up on a statement the node forgot and could not prepare again (seen on Cassandra 5.0). */
  const unprepared = () =>
    new errors.NoHostAvailableError({
      '127.0.0.1:9042': new errors.ResponseError(
        codes.unprepared,
        'Prepared query with ID 85d8bb65a6b2bea3fbeb0d74183c754d not found (either the query was not prepared on this host (maybe the host has been restarted?) or you have prepared too many queries and it has been evicted from the internal cache)',
      ),
    });

  it("names the missing keyspace or table from Cassandra's refusal to prepare", () => {
    expect(schemaLoss(invalid('keyspace kairosdb does not exist'), 'kairosdb', undefined, TABLE_NAMES)).toBe(
      'keyspace kairosdb does not exist',
    );
    expect(schemaLoss(invalid("Keyspace 'kairosdb' does not exist"), 'kairosdb', undefined, TABLE_NAMES)).toBe(
      'keyspace kairosdb does not exist',
    );
    expect(schemaLoss(invalid('table row_keys does not exist'), 'kairosdb', undefined, TABLE_NAMES)).toBe(
      'table kairosdb.row_keys does not exist',
    );
    // Cassandra 4.0's wording.
    expect(schemaLoss(invalid('unconfigured table data_points'), 'kairosdb', undefined, TABLE_NAMES)).toBe(
      'table kairosdb.data_points does not exist',
    );
  });

  it('blames the table of a statement prepared before the drop that could not be prepared again', () => {
    expect(schemaLoss(unprepared(), 'kairosdb', 'data_points.insert', TABLE_NAMES)).toBe(
      'table kairosdb.data_points or its keyspace may be gone (statement data_points.insert could not be prepared again)',
    );
    expect(schemaLoss(unprepared(), 'kairosdb', undefined, TABLE_NAMES)).toBe(
      'keyspace kairosdb or one of its tables may be gone (a statement could not be prepared again)',
    );
  });

  it("leaves other failures alone, and other keyspaces' and tables' absence too", () => {
    expect(
      schemaLoss(
        invalid('Undefined column name valu in table kairosdb.data_points'),
        'kairosdb',
        undefined,
        TABLE_NAMES,
      ),
    ).toBeUndefined();
    expect(schemaLoss(invalid('keyspace other does not exist'), 'kairosdb', undefined, TABLE_NAMES)).toBeUndefined();
    expect(schemaLoss(invalid('table not_kairos does not exist'), 'kairosdb', undefined, TABLE_NAMES)).toBeUndefined();
    expect(
      schemaLoss(
        new errors.ResponseError(codes.unavailableException, 'Cannot achieve consistency level QUORUM'),
        'kairosdb',
        undefined,
        TABLE_NAMES,
      ),
    ).toBeUndefined();
    expect(
      schemaLoss(
        new errors.NoHostAvailableError({ '127.0.0.1:9042': new Error('connect ECONNREFUSED 127.0.0.1:9042') }),
        'kairosdb',
        undefined,
        TABLE_NAMES,
      ),
    ).toBeUndefined();
    expect(schemaLoss(new TypeError('Not a valid blob'), 'kairosdb', undefined, TABLE_NAMES)).toBeUndefined();
  });
});
