// Every CQL statement the store runs, as KairosDB's ClusterConnection spells them (the data_points insert aside, see
// insertPoint), qualified with the validated keyspace. Values always travel as bound parameters of prepared statements.
import type { Executor } from '../cassandra-client/executor.js';

/** What the store counts: one per request sent to Cassandra (a page, a batch, a statement). */
export type StatementName =
  | 'data_points.select'
  | 'data_points.insert'
  | 'data_points.delete_partition'
  | 'data_points.delete_range'
  | 'row_keys.select'
  | 'row_keys.select_in'
  | 'row_keys.select_any'
  | 'row_keys.insert'
  | 'row_keys.delete'
  | 'tag_indexed_row_keys.select'
  | 'tag_indexed_row_keys.select_series'
  | 'tag_indexed_row_keys.insert'
  | 'tag_indexed_row_keys.delete'
  | 'service_index.select'
  | 'service_index.select_partitions'
  | 'service_index.insert'
  | 'service_index.delete'
  | 'service_index.claim'
  | 'row_key_time_index.select'
  | 'row_key_time_index.insert'
  | 'row_key_time_index.delete'
  | 'row_key_index.select'
  | 'row_key_index.delete'
  | 'row_key_index.delete_partition'
  | 'string_index.select'
  | 'string_index.insert'
  | 'string_index.delete'
  | 'spec.select'
  | 'spec.insert'
  | 'system.ping';

export type Statements = ReturnType<typeof statementsFor>;

/** KairosDB writes the literal table name into the index tables' `table_name` column. */
export const DATA_POINTS_TABLE = 'data_points';

export function statementsFor(keyspace: string) {
  const t = (table: string) => `${keyspace}.${table}`;
  const selectPoints = `SELECT column1, value FROM ${t('data_points')} WHERE key = ? AND column1 >= ? AND column1 < ? ORDER BY column1`;
  return {
    selectPointsAsc: `${selectPoints} ASC`,
    selectPointsDesc: `${selectPoints} DESC`,
    selectPointsAscLimit: `${selectPoints} ASC LIMIT ?`,
    selectPointsDescLimit: `${selectPoints} DESC LIMIT ?`,
    // KairosDB binds `USING TTL ? AND TIMESTAMP ?` per cell; the write time here is the batch's (the same millisecond
    // timestamp for every cell, as KairosDB's), which spares a bound value per cell on both sides. The TTL stays bound:
    // 0 must mean "never expires" also on a table with a default_time_to_live, which only an explicit TTL 0 overrides.
    insertPoint: `INSERT INTO ${t('data_points')} (key, column1, value) VALUES (?, ?, ?) USING TTL ?`,
    deletePartition: `DELETE FROM ${t('data_points')} USING TIMESTAMP ? WHERE key = ?`,
    deleteRange: `DELETE FROM ${t('data_points')} USING TIMESTAMP ? WHERE key = ? AND column1 >= ? AND column1 < ?`,

    // As a bigint, not a timestamp: the driver decodes a timestamp into a Date, which is invalid beyond ±8.64e15 ms,
    // and the row of a point at -8.64e15 starts before it (KairosDB's rows of negative times are unaligned).
    selectRowTimes: `SELECT toUnixTimestamp(row_time) AS row_time_ms FROM ${t('row_key_time_index')} WHERE metric = ? AND table_name = ? AND row_time >= ? AND row_time <= ?`,
    insertRowTime: `INSERT INTO ${t('row_key_time_index')} (metric, table_name, row_time) VALUES (?, ?, ?) USING TTL ?`,
    deleteRowTime: `DELETE FROM ${t('row_key_time_index')} USING TIMESTAMP ? WHERE metric = ? AND table_name = ? AND row_time = ?`,

    selectRowKeys: `SELECT data_type, tags FROM ${t('row_keys')} WHERE metric = ? AND table_name = ? AND row_time = ?`,
    selectRowKeysIn: `SELECT toUnixTimestamp(row_time) AS row_time_ms, data_type, tags FROM ${t('row_keys')} WHERE metric = ? AND table_name = ? AND row_time IN ?`,
    selectAnyRowKey: `SELECT data_type FROM ${t('row_keys')} WHERE metric = ? AND table_name = ? AND row_time = ? LIMIT 1`,
    insertRowKey: `INSERT INTO ${t('row_keys')} (metric, table_name, row_time, data_type, tags, mtime) VALUES (?, ?, ?, ?, ?, now()) USING TTL ?`,
    deleteRowKey: `DELETE FROM ${t('row_keys')} USING TIMESTAMP ? WHERE metric = ? AND table_name = ? AND row_time = ? AND data_type = ? AND tags = ?`,

    // KairosDB's SELECT reads row_time, TTL(value) and tag_collection_hash too, for a size estimate it takes from the
    // wrong column (COMPATIBILITY.md item 20); the planner counts rows instead.
    selectTagIndexed: `SELECT data_type, tags FROM ${t('tag_indexed_row_keys')} WHERE metric = ? AND table_name = ? AND row_time = ? AND single_tag_pair = ?`,
    selectTagIndexedLimit: `SELECT data_type, tags FROM ${t('tag_indexed_row_keys')} WHERE metric = ? AND table_name = ? AND row_time = ? AND single_tag_pair = ? LIMIT ?`,
    // One series' rows in a partition, whatever hash they were written with (the indexed tags may have changed since).
    // Filtering stays inside one partition: the hash, between data_type and tags, is what is not known.
    selectTagIndexedSeries: `SELECT tag_collection_hash FROM ${t('tag_indexed_row_keys')} WHERE metric = ? AND table_name = ? AND row_time = ? AND single_tag_pair = ? AND data_type = ? AND tags = ? ALLOW FILTERING`,
    insertTagIndexed: `INSERT INTO ${t('tag_indexed_row_keys')} (metric, table_name, row_time, data_type, single_tag_pair, tag_collection_hash, tags, mtime) VALUES (?, ?, ?, ?, ?, ?, ?, now()) USING TTL ?`,
    deleteTagIndexed: `DELETE FROM ${t('tag_indexed_row_keys')} USING TIMESTAMP ? WHERE metric = ? AND table_name = ? AND row_time = ? AND single_tag_pair = ? AND data_type = ? AND tag_collection_hash = ? AND tags = ?`,
    selectLatestRowTime: `SELECT toUnixTimestamp(row_time) AS row_time_ms FROM ${t('row_key_time_index')} WHERE metric = ? ORDER BY table_name DESC, row_time DESC LIMIT 1`,
    selectServiceKeys: `SELECT key, value FROM ${t('service_index')} WHERE service = ? AND service_key = ?`,
    insertServiceKey: `INSERT INTO ${t('service_index')} (service, service_key, key, value) VALUES (?, ?, ?, ?)`,
    deleteServiceKey: `DELETE FROM ${t('service_index')} USING TIMESTAMP ? WHERE service = ? AND service_key = ? AND key = ?`,
    // The metadata API's statements, as KairosDB's (mtime, the partition's last change, is what its roll-up manager
    // polls), but for listing a service's keys: KairosDB filters the whole table (ALLOW FILTERING); this reads the
    // distinct partition keys, paged, which touches one row per partition instead of every row.
    selectServicePartitions: `SELECT DISTINCT service, service_key FROM ${t('service_index')}`,
    selectServiceIndexKeys: `SELECT key FROM ${t('service_index')} WHERE service = ? AND service_key = ?`,
    selectServiceIndexKeysFrom: `SELECT key FROM ${t('service_index')} WHERE service = ? AND service_key = ? AND key >= ?`,
    selectServiceIndexKeysBetween: `SELECT key FROM ${t('service_index')} WHERE service = ? AND service_key = ? AND key >= ? AND key < ?`,
    selectServiceIndexAnyKey: `SELECT key FROM ${t('service_index')} WHERE service = ? AND service_key = ? LIMIT 1`,
    selectServiceIndexValue: `SELECT value, WRITETIME(value) AS written FROM ${t('service_index')} WHERE service = ? AND service_key = ? AND key = ?`,
    insertServiceIndexValue: `INSERT INTO ${t('service_index')} (service, service_key, key, value, mtime) VALUES (?, ?, ?, ?, now())`,
    deleteServiceIndexValue: `DELETE FROM ${t('service_index')} WHERE service = ? AND service_key = ? AND key = ?`,
    touchServiceIndex: `INSERT INTO ${t('service_index')} (service, service_key, mtime) VALUES (?, ?, now())`,
    // Claims (ServiceIndex.claim): rows only ever written by these two lightweight transactions, so Paxos orders every
    // change of them. The first claim of a key creates its row; a later one (an expired claim taken over, a claim
    // extended, a completion) swaps the value it read for its own, and fails if another got there first.
    insertClaim: `INSERT INTO ${t('service_index')} (service, service_key, key, value) VALUES (?, ?, ?, ?) IF NOT EXISTS`,
    swapClaim: `UPDATE ${t('service_index')} SET value = ? WHERE service = ? AND service_key = ? AND key = ? IF value = ?`,

    selectLegacyRowKeys: `SELECT column1 FROM ${t('row_key_index')} WHERE key = ? AND column1 >= ? AND column1 < ?`,
    deleteLegacyRowKey: `DELETE FROM ${t('row_key_index')} USING TIMESTAMP ? WHERE key = ? AND column1 = ?`,
    deleteLegacyRowKeys: `DELETE FROM ${t('row_key_index')} USING TIMESTAMP ? WHERE key = ?`,

    selectNames: `SELECT column1 FROM ${t('string_index')} WHERE key = ?`,
    selectNamesLimit: `SELECT column1 FROM ${t('string_index')} WHERE key = ? LIMIT ?`,
    selectNamesFrom: `SELECT column1 FROM ${t('string_index')} WHERE key = ? AND column1 >= ?`,
    selectNamesFromLimit: `SELECT column1 FROM ${t('string_index')} WHERE key = ? AND column1 >= ? LIMIT ?`,
    selectNamesBetween: `SELECT column1 FROM ${t('string_index')} WHERE key = ? AND column1 >= ? AND column1 < ?`,
    selectNamesBetweenLimit: `SELECT column1 FROM ${t('string_index')} WHERE key = ? AND column1 >= ? AND column1 < ? LIMIT ?`,
    insertName: `INSERT INTO ${t('string_index')} (key, column1, value) VALUES (?, ?, 0x00)`,
    deleteName: `DELETE FROM ${t('string_index')} USING TIMESTAMP ? WHERE key = ? AND column1 = ?`,

    selectSpec: `SELECT value FROM ${t('spec')} WHERE spec_type = ? AND name = ?`,
    insertSpec: `INSERT INTO ${t('spec')} (spec_type, name, value) VALUES (?, ?, ?)`,

    ping: 'SELECT release_version FROM system.local',
  } as const;
}

/** The Cassandra client's executor over these statements: every request the store sends is named by one. */
export type StoreExecutor = Executor<StatementName>;
