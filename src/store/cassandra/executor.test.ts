/** Which driver failures mean "Cassandra is unavailable", and the one-line messages clients get for them. */
import cassandra from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../errors.js';
import { storeError } from './executor.js';

const { errors, types } = cassandra;

describe('storeError', () => {
  it('names every host and its own error when no host answered, without stack traces', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9042'), { code: 'ECONNREFUSED' });
    const timedOut = new errors.OperationTimedOutError('The host 10.0.0.2:9042 did not reply before timeout 12000 ms', '10.0.0.2:9042');
    const mapped = storeError(new errors.NoHostAvailableError({ '127.0.0.1:9042': refused, '10.0.0.2:9042': timedOut }));
    expect(mapped).toBeInstanceOf(StoreUnavailableError);
    expect((mapped as StoreUnavailableError).message).toBe(
      'the cassandra store is unavailable: no Cassandra host answered (127.0.0.1:9042: connect ECONNREFUSED 127.0.0.1:9042; 10.0.0.2:9042: The host 10.0.0.2:9042 did not reply before timeout 12000 ms)',
    );
    expect((mapped as StoreUnavailableError).code).toBe('STORE_UNAVAILABLE');
  });

  it('treats timeouts and unavailable or overloaded replicas as unavailability', () => {
    const codes = types.responseErrorCodes;
    for (const error of [
      new errors.OperationTimedOutError('The host 127.0.0.1:9042 did not reply before timeout 1000 ms', '127.0.0.1:9042'),
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
    const syntax = new errors.ResponseError(types.responseErrorCodes.syntaxError, "line 1:0 no viable alternative at input 'SELEC'");
    expect(storeError(syntax)).toBe(syntax);
    const plain = new TypeError('Not a valid blob');
    expect(storeError(plain)).toBe(plain);
  });
});
