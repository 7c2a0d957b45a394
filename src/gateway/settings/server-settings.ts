/** The listener, the primary store and its sources, KairosDB's row spec for a new store. */
import { setting } from './setting.js';
import { integer, sourceName, nonEmpty, oneOf } from './parsers.js';

export const SERVER_SETTINGS = [
  setting({
    env: 'PORT',
    key: 'port',
    default: '4000',
    meaning: 'HTTP port of GraphQL (`/graphql`), REST (`/api/v1`) and operations endpoints',
    parse: (raw, env) => integer(raw, env, 0, 65535),
  }),
  setting({
    env: 'HOST',
    key: 'host',
    default: '127.0.0.1',
    meaning: 'Address to listen on (`0.0.0.0` for every interface)',
    parse: (raw, env) => nonEmpty(raw, env),
  }),
  setting({
    env: 'STORE',
    key: 'store',
    default: 'embedded',
    meaning:
      "`embedded`: LMDB in `DATA_DIR`, no server needed; `cassandra`: KairosDB's keyspace on a Cassandra cluster (`CASSANDRA_*`)",
    parse: (raw, env) => oneOf(raw, env, ['embedded', 'cassandra'] as const),
  }),
  setting({
    env: 'DATA_DIR',
    key: 'dataDir',
    default: './data',
    meaning: 'Directory of the embedded store',
    parse: (raw, env) => nonEmpty(raw, env),
  }),
  setting({
    env: 'PRIMARY_SOURCE_NAME',
    key: 'primarySourceName',
    default: 'kairosdb',
    meaning:
      "Name of the primary source (the `STORE` above, with the `kairosdb` layout): what GraphQL's `source` argument takes for it, and what fields without one and the REST API use",
    parse: (raw, env) => sourceName(raw, env),
  }),
  setting({
    env: 'SOURCES_FILE',
    key: 'sourcesFile',
    default: '',
    meaning:
      'A JSON file of more sources, `{"sources": [...]}`, read and checked at start ([Sources](sources.md)); empty for none',
    parse: (raw) => raw,
  }),
  setting({
    env: 'BIGTABLE_EMULATOR_HOST',
    key: 'bigtableEmulatorHost',
    default: '',
    meaning:
      "`host:port` of a Bigtable emulator, as Google's clients take it: where a heroic source on the bigtable store that names no `endpoint` is ([Heroic's Bigtable data](heroic-bigtable.md))",
    parse: (raw) => raw.trim(),
  }),
  setting({
    env: 'ROW_TIME_UNIT',
    key: 'rowTimeUnit',
    default: 'MILLISECONDS',
    meaning:
      "KairosDB's `row_time_unit`, written to the `spec` of a new store only (one over old KairosDB data gets LEGACY): MILLISECONDS or SECONDS",
    parse: (raw, env) => oneOf(raw, env, ['MILLISECONDS', 'SECONDS'] as const),
  }),
  setting({
    env: 'ROW_WIDTH',
    key: 'rowWidth',
    default: '0',
    meaning:
      "KairosDB's `row_width`, written to the `spec` of a new store only; `0` for KairosDB's 1814400000 ms (1814400 with SECONDS)",
    parse: (raw, env) => integer(raw, env, 0, 1_000_000_000_000),
  }),
] as const;
