/** The KairosDB REST and input hygiene suites against the real Cassandra of the integration run. */
import { afterAll } from 'vitest';
import { describeInputHygiene } from '../rest/input-hygiene-suite.js';
import { describeKairosRest } from '../rest/kairos-rest-suite.js';
import { KeyspacePool } from './cassandra-stores.js';

const pool = new KeyspacePool('kg_rest');
afterAll(() => pool.shutdown());

describeKairosRest('cassandra', (options = {}) => pool.store(options));
// Keys of 65,535 bytes; row_keys' partition key spends 28 of them around the metric name (schema in key-limits.ts).
describeInputHygiene('cassandra', () => pool.store(), {
  store: "the Cassandra store's",
  maxMetricBytes: 65507,
  maxRowKeyBytes: 65535,
  maxRowKeysTagsBytes: 65535,
});
