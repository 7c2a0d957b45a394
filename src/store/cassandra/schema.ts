// The keyspace, KairosDB's tables and the spec rows: created when missing (never altered) on connect and when found
// gone later, and the spec read, or written for a new keyspace exactly as a KairosDB write cluster does (§1, §10.1).
import { initialRowTimeUnit, initialRowWidth, parseRowSpec } from '../row-spec.js';
import type { RowSpec } from '../store.js';
import type { Executor } from './executor.js';
import { TABLE_NAMES, type ResolvedOptions, type TableName } from './options.js';
import type { Statements } from './statements.js';

/** ClusterConnection's CREATE TABLE bodies; COMPACT STORAGE is gone (Cassandra 4+ refuses it, KairosDB #599). */
const TABLE_DEFINITIONS: Record<TableName, string> = {
  data_points: 'key blob, column1 blob, value blob, PRIMARY KEY ((key), column1)',
  row_key_index: 'key blob, column1 blob, value blob, PRIMARY KEY ((key), column1)',
  string_index: 'key blob, column1 text, value blob, PRIMARY KEY ((key), column1)',
  row_keys:
    'metric text, table_name text, row_time timestamp, data_type text, tags frozen<map<text, text>>, mtime timeuuid static, value text, ' +
    'PRIMARY KEY ((metric, table_name, row_time), data_type, tags)',
  tag_indexed_row_keys:
    'metric text, table_name text, row_time timestamp, single_tag_pair text, tag_collection_hash int, data_type text, ' +
    'tags frozen<map<text, text>>, mtime timeuuid static, value text, ' +
    'PRIMARY KEY ((metric, table_name, row_time, single_tag_pair), data_type, tag_collection_hash, tags)',
  row_key_time_index: 'metric text, table_name text, row_time timestamp, value text, PRIMARY KEY ((metric), table_name, row_time)',
  spec: 'spec_type text, name text, value text, PRIMARY KEY ((spec_type), name)',
  service_index: 'service text, service_key text, key text, mtime timeuuid static, value text, PRIMARY KEY ((service, service_key), key)',
};

/** DDL waits for schema agreement; on a busy node that takes seconds, far longer than a read. */
const DDL_TIMEOUT_MS = 120_000;

/** What a keyspace lacks of KairosDB's schema: the keyspace itself (and then every table), or some tables. */
export interface MissingSchema {
  readonly keyspace: boolean;
  readonly tables: readonly TableName[];
}

/**
 * Looks up what is missing. Existing objects are looked up first rather than left to IF NOT EXISTS, so a gateway
 * whose user may not create tables still starts against a complete keyspace.
 */
export async function findMissingSchema(exec: Executor, options: ResolvedOptions): Promise<MissingSchema> {
  const { keyspace } = options;
  const keyspaces = await exec.system('SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?', [keyspace]);
  if (keyspaces.rows.length === 0) return { keyspace: true, tables: TABLE_NAMES };
  const tables = await exec.system('SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?', [keyspace]);
  const existing = new Set(tables.rows.map((row) => String(row.get('table_name'))));
  return { keyspace: false, tables: TABLE_NAMES.filter((table) => !existing.has(table)) };
}

/** Creates what is missing, in KairosDB's order, with the configured replication and table options; alters nothing. */
export async function createMissingSchema(exec: Executor, options: ResolvedOptions, missing: MissingSchema): Promise<void> {
  const { keyspace } = options;
  if (missing.keyspace) {
    await exec.ddl(`CREATE KEYSPACE IF NOT EXISTS ${keyspace} WITH REPLICATION = ${options.replication}`, DDL_TIMEOUT_MS);
  }
  for (const table of missing.tables) {
    const suffix = options.tableOptions[table];
    await exec.ddl(`CREATE TABLE IF NOT EXISTS ${keyspace}.${table} (${TABLE_DEFINITIONS[table]})${suffix ? ` ${suffix}` : ''}`, DDL_TIMEOUT_MS);
  }
}

/** What is missing in words for logs and clients (`keyspace kairosdb does not exist`), or undefined when nothing is. */
export function describeMissingSchema(keyspace: string, missing: MissingSchema): string | undefined {
  if (missing.keyspace) return `keyspace ${keyspace} does not exist`;
  const tables = missing.tables.map((table) => `${keyspace}.${table}`);
  if (tables.length === 0) return undefined;
  return tables.length === 1 ? `table ${tables[0]} does not exist` : `tables ${tables.join(', ')} do not exist`;
}

const CLUSTER_CONFIG = 'cluster_config';
const ROW_TIME_UNIT = 'row_time_unit';
const ROW_WIDTH = 'row_width';
/** The string_index partition of metric names; KairosDB writes it as the UTF-8 bytes of this text. */
export const METRIC_NAMES_KEY = Buffer.from('metric_names', 'utf8');

/** KairosDB's readRowSpec: missing spec rows are written (row-spec.ts has the rules), then the spec is read. */
export async function readSpec(exec: Executor, statements: Statements, options: ResolvedOptions, timestampMs: number): Promise<RowSpec> {
  const read = async (name: string): Promise<string | undefined> => {
    const result = await exec.mutationRead('spec.select', statements.selectSpec, [CLUSTER_CONFIG, name]);
    const value = result.rows[0]?.get('value');
    return value === null || value === undefined ? undefined : String(value);
  };
  const write = (name: string, value: string) => exec.mutate('spec.insert', statements.insertSpec, [CLUSTER_CONFIG, name, value], timestampMs);
  let unit = await read(ROW_TIME_UNIT);
  if (unit === undefined) {
    const names = await exec.mutationRead('string_index.select', statements.selectNamesLimit, [METRIC_NAMES_KEY, 1]);
    unit = initialRowTimeUnit(names.rows.length > 0, options.rowTimeUnit);
    await write(ROW_TIME_UNIT, unit);
  }
  let widthText = await read(ROW_WIDTH);
  if (widthText === undefined) {
    widthText = initialRowWidth(unit, options.rowWidth);
    await write(ROW_WIDTH, widthText);
  }
  return parseRowSpec(unit, widthText, `keyspace ${options.keyspace}`);
}
