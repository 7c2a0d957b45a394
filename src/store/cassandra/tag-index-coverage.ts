// Since when each line of TAG_INDEXED_METRICS has been in force in this keyspace, kept in KairosDB's metadata table
// (service_index, service `kairograph`), so that reads trust tag_indexed_row_keys only for row periods whose every
// series was written with the index on, and read row_keys for the others (what KairosDB gets wrong: §4 B).
import type cassandra from 'cassandra-driver';
import { rowTimeOf } from '../format/index.js';
import type { RowSpec } from '../store.js';
import {
  COVERAGE_SERVICE,
  COVERAGE_SERVICE_KEY,
  coverageEntries,
  entryMetric,
  TagIndexCoverage,
  type TagIndexConfig,
} from '../tag-index.js';
import type { StoreExecutor, Statements } from './statements.js';
import { METRIC_NAMES_KEY } from './schema.js';

/**
 * Reads the markers at connect time, writes those of configuration lines that have none, and removes those of lines no
 * longer configured: a line turned off and on again must not claim the periods written while it was off.
 *
 * A new line is complete from the first row time after every row the metric (or, for `["*"]`, the keyspace) already
 * has and after the current one; when there is no row yet, from the start of time. Every writer of the keyspace is
 * assumed to index as configured from then on, as KairosDB's own read clusters assume.
 */
export async function readCoverage(
  exec: StoreExecutor,
  st: Statements,
  config: TagIndexConfig,
  spec: RowSpec,
  nowMs: number,
  timestampMs: number,
): Promise<TagIndexCoverage> {
  const stored = new Map<string, number>();
  for (const row of (await exec.system(st.selectServiceKeys, [COVERAGE_SERVICE, COVERAGE_SERVICE_KEY])).rows) {
    const since = Number(row.get('value'));
    if (Number.isSafeInteger(since)) stored.set(String(row.get('key')), since);
  }
  const wanted = coverageEntries(config);
  const since = new Map<string, number>();
  for (const entry of wanted) {
    let from = stored.get(entry);
    if (from === undefined) {
      from = await firstCompleteRowTime(exec, st, spec, entryMetric(entry), nowMs);
      await exec.mutate(
        'service_index.insert',
        st.insertServiceKey,
        [COVERAGE_SERVICE, COVERAGE_SERVICE_KEY, entry, String(from)],
        timestampMs,
      );
    }
    since.set(entry, from);
  }
  for (const entry of stored.keys()) {
    if (!wanted.includes(entry))
      await exec.mutate(
        'service_index.delete',
        st.deleteServiceKey,
        [timestampMs, COVERAGE_SERVICE, COVERAGE_SERVICE_KEY, entry],
        timestampMs,
      );
  }
  return new TagIndexCoverage(config, since);
}

/** The first row time whose series all get index rows from now on. */
async function firstCompleteRowTime(
  exec: StoreExecutor,
  st: Statements,
  spec: RowSpec,
  metric: string | undefined,
  nowMs: number,
): Promise<number> {
  // The raw width, as rowTimeOf uses it (with unit SECONDS it is applied to ms, reference §2.2).
  const next = rowTimeOf(nowMs, spec.width) + spec.width;
  if (metric === undefined) {
    const names = await exec.system(st.selectNamesLimit, [METRIC_NAMES_KEY, 1]);
    return names.rows.length === 0 ? Number.MIN_SAFE_INTEGER : next;
  }
  const latest = await exec.system(st.selectLatestRowTime, [metric]);
  const row = latest.rows[0];
  if (row === undefined) return Number.MIN_SAFE_INTEGER;
  // Points already written ahead of the clock (a collector's clock, back-fill of the future) count too.
  return Math.max(next, (row.get('row_time_ms') as cassandra.types.Long).toNumber() + spec.width);
}
