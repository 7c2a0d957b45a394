/**
 * What the Cassandra store's keys can hold. Cassandra refuses a partition key, or the clustering values of one row
 * together, over 65,535 bytes ("Key length of 65536 is longer than maximum of 65535", measured on Cassandra 5.0).
 */
import type { KeyLimits } from '../../model/key-limits.js';
import { DATA_POINTS_TABLE } from './statements.js';

/** An unsigned short: the length field of a key. */
const MAX_KEY_BYTES = 0xffff;

/** A timestamp column (row_time) serializes as 8 bytes. */
const TIMESTAMP_BYTES = 8;

/**
 * Where each user string goes (schema.ts has the tables):
 * - a metric name is the partition key of row_key_time_index (text) and row_key_index (blob), a clustering value of
 *   string_index, and the first component of row_keys' composite partition key (metric, table_name, row_time), where
 *   each component costs a 2-byte length and an end-of-component byte: 65,535 − 3·3 − 11 − 8 = 65,507 bytes;
 * - a row key is data_points' partition key (blob): 65,535 bytes;
 * - a series' data type and tags are row_keys' clustering values (text and frozen<map<text, text>>): 65,535 bytes.
 */
export const CASSANDRA_KEY_LIMITS: KeyLimits = {
  store: "the Cassandra store's",
  maxMetricBytes: MAX_KEY_BYTES - 3 * 3 - Buffer.byteLength(DATA_POINTS_TABLE) - TIMESTAMP_BYTES,
  maxRowKeyBytes: MAX_KEY_BYTES,
  maxRowKeysTagsBytes: MAX_KEY_BYTES,
};
