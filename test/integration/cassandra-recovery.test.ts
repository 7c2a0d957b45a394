/**
 * Recovery from a lost schema on the real node: with a connected gateway, KairosDB's keyspace or one table is dropped
 * behind its back (as when Cassandra restarts without having synced its schema); requests answer 503 with
 * STORE_UNAVAILABLE naming what is gone, never 500, the store re-creates what is missing as at start, says what was
 * lost, and serves again. (test/integration/cassandra-lifecycle.test.ts has crashed, replaced and half-loaded nodes.)
 */
import type cassandra from 'cassandra-driver';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CassandraStore, type CassandraStoreOptions } from '../../src/store/cassandra/cassandra-store.js';
import { TABLE_NAMES } from '../../src/store/cassandra/options.js';
import { startRestGateway, type RestGateway, type RestResponse } from '../rest/rest-client.js';
import { emptyKeyspace, plainClient, storeOptions, waitFor } from './cassandra-stores.js';

const KEYSPACE = 'kg_recovery';
const T0 = 1_714_557_600_000;
const WRITE = `mutation { addPoints(series: [{ metric: "up", tags: [{ name: "host", value: "a" }], type: LONG, points: [{ time: ${T0}, value: 1 }] }]) { points } }`;
const READ = `{ points(metric: "up", from: ${T0 - 1000}, to: ${T0 + 1000}) { points { epochMs value } } }`;
const WRITTEN = { data: { addPoints: { points: 1 } } };
const READ_BACK = { data: { points: [{ points: [{ epochMs: T0, value: 1 }] }] } };
/** A table option the gateway must apply again to the data_points table it re-creates. */
const COMMENT = 'kairograph recovery test';
const RECOVERY_MS = 60_000;
/** The one message a request gets while the schema is being re-created: what is gone, then what the store does. */
const REPAIRING =
  /^the cassandra store is unavailable: .+; re-creating KairosDB's tables( \(last attempt failed: .+\))?$/;

interface LogLine {
  readonly level: 'info' | 'warn';
  readonly message: string;
  readonly fields: object;
}

let cql: cassandra.Client;
const opened: { gw: RestGateway; store: CassandraStore }[] = [];

beforeAll(async () => {
  cql = await plainClient();
});
afterEach(async () => {
  for (const { gw, store } of opened.splice(0)) {
    await gw.close();
    await store.close();
  }
});
afterAll(async () => {
  await cql?.shutdown();
});

/** A gateway connected to an emptied KEYSPACE (created as at start when missing), and its store's log. */
async function connectedGateway(
  options: Partial<CassandraStoreOptions> = {},
): Promise<{ gw: RestGateway; store: CassandraStore; log: LogLine[] }> {
  await emptyKeyspace(cql, KEYSPACE);
  const log: LogLine[] = [];
  const store = await CassandraStore.open(
    storeOptions(KEYSPACE, {
      tableOptions: { data_points: `WITH comment = '${COMMENT}'` },
      // Only requests find what is gone here, so that the first one's answer is always the same.
      schemaCheckMs: 0,
      ...options,
      log: {
        info: (fields, message) => void log.push({ level: 'info', message, fields }),
        warn: (fields, message) => void log.push({ level: 'warn', message, fields }),
      },
    }),
  );
  const gw = await startRestGateway(store);
  opened.push({ gw, store });
  return { gw, store, log };
}

/** A GraphQL error as the gateway answers a store that is unavailable for `reason` at field `field`. */
function unavailableAt(field: string, reason: string): unknown {
  return {
    errors: [
      {
        message: `the cassandra store is unavailable: ${reason}; re-creating KairosDB's tables`,
        path: [field],
        locations: [{ line: 1, column: field === 'points' ? 3 : 12 }],
        extensions: { code: 'STORE_UNAVAILABLE' },
      },
    ],
    data: null,
  };
}

/**
 * Asks until a GraphQL request succeeds; every answer before must be the 503 of a schema being re-created, never a
 * 500 or anything else. Returns the statuses seen.
 */
async function graphqlUntilServed(gw: RestGateway, query: string): Promise<number[]> {
  const statuses: number[] = [];
  await waitFor(
    `${query} served again`,
    async () => {
      const response = await gw.graphql(query);
      statuses.push(response.status);
      if (response.status === 200) return true;
      expect(response.status).toBe(503);
      expect(response.body.errors).toHaveLength(1);
      expect(response.body.errors![0]!.extensions).toEqual({ code: 'STORE_UNAVAILABLE' });
      expect(response.body.errors![0]!.message).toMatch(REPAIRING);
      return false;
    },
    RECOVERY_MS,
  );
  return statuses;
}

/** The same for a REST call: KairosDB's `{"errors": [...]}` with 503 until it succeeds. */
async function restUntilServed(call: () => Promise<RestResponse>): Promise<RestResponse> {
  let last: RestResponse | undefined;
  await waitFor(
    'a REST request served again',
    async () => {
      last = await call();
      if (last.status < 300) return true;
      expect(last.status).toBe(503);
      expect((last.json as { errors: string[] }).errors).toHaveLength(1);
      expect((last.json as { errors: string[] }).errors[0]).toMatch(REPAIRING);
      return false;
    },
    RECOVERY_MS,
  );
  return last!;
}

async function tablesOf(keyspace: string): Promise<string[]> {
  const result = await cql.execute('SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?', [keyspace], {
    prepare: true,
  });
  return result.rows.map((row) => String(row.get('table_name'))).sort();
}

async function commentOf(table: string): Promise<string> {
  const result = await cql.execute(
    'SELECT comment FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?',
    [KEYSPACE, table],
    { prepare: true },
  );
  return String(result.rows[0]?.get('comment'));
}

async function countOf(table: string): Promise<number> {
  return Number((await cql.execute(`SELECT count(*) AS n FROM ${KEYSPACE}.${table}`)).rows[0]!.get('n'));
}

/** The store's log lines of the recovery: the warning that starts it, what was lost, and the line that ends it. */
function recoveryLines(log: LogLine[]): string[] {
  return log
    .filter((line) => line.message.startsWith("KairosDB's schema") || line.message.includes('re-created'))
    .map((line) => `${line.level}: ${line.message}`);
}

const pointQuery = { start_absolute: T0 - 1000, end_absolute: T0 + 1000, metrics: [{ name: 'up' }] };
const pointAnswer = {
  queries: [
    {
      sample_size: 1,
      results: [{ name: 'up', group_by: [{ name: 'type', type: 'number' }], tags: { host: ['a'] }, values: [[T0, 1]] }],
    },
  ],
};

describe('the keyspace is dropped while the gateway is connected', () => {
  it('answers GraphQL 503 naming the keyspace, re-creates keyspace, tables and spec once for all callers, and serves again', async () => {
    const { gw, log } = await connectedGateway();
    // Only writes ran: the read's statements were never prepared, so preparing them meets the missing keyspace.
    expect((await gw.graphql(WRITE)).body).toEqual(WRITTEN);
    await cql.execute(`DROP KEYSPACE ${KEYSPACE}`);

    const first = await gw.graphql(READ);
    expect(first.status).toBe(503);
    expect(first.body).toEqual(unavailableAt('points', `keyspace ${KEYSPACE} does not exist`));

    // Many callers at once while the repair runs: each is refused at once, and they share that one repair.
    const crowd = await Promise.all(Array.from({ length: 20 }, () => gw.graphql(READ)));
    for (const response of crowd) {
      if (response.status === 200) continue;
      expect(response.status).toBe(503);
      expect(response.body.errors![0]!.extensions).toEqual({ code: 'STORE_UNAVAILABLE' });
      expect(response.body.errors![0]!.message).toMatch(REPAIRING);
    }
    await graphqlUntilServed(gw, READ);
    expect(recoveryLines(log)).toEqual([
      "warn: KairosDB's schema is gone; re-creating what is missing",
      `warn: re-created ${KEYSPACE} and its 8 tables: data written before it was lost may be missing`,
      "info: KairosDB's schema repaired",
    ]);

    expect(await tablesOf(KEYSPACE)).toEqual([...TABLE_NAMES].sort());
    const keyspace = await cql.execute(
      'SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?',
      [KEYSPACE],
      { prepare: true },
    );
    expect(Object.fromEntries(keyspace.rows[0]!.get('replication') as Map<string, string>)).toEqual({
      class: 'org.apache.cassandra.locator.SimpleStrategy',
      replication_factor: '1',
    });
    expect(await commentOf('data_points')).toBe(COMMENT);
    const spec = await cql.execute(`SELECT name, value FROM ${KEYSPACE}.spec WHERE spec_type = 'cluster_config'`);
    expect(spec.rows.map((row) => [row.get('name'), row.get('value')])).toEqual([
      ['row_time_unit', 'MILLISECONDS'],
      ['row_width', '1814400000'],
    ]);

    // The keyspace came back empty; a write and a read round-trip without a restart.
    expect((await gw.graphql(READ)).body).toEqual({ data: { points: [] } });
    expect((await gw.graphql(WRITE)).body).toEqual(WRITTEN);
    expect((await gw.graphql(READ)).body).toEqual(READ_BACK);
    expect((await fetch(`${gw.url}/ready`)).status).toBe(200);
  });

  it('answers a REST query 503 naming the keyspace, and REST writes and queries work again after', async () => {
    const { gw } = await connectedGateway();
    expect(
      (
        await gw.call('POST', '/api/v1/datapoints', {
          body: [{ name: 'up', tags: { host: 'a' }, datapoints: [[T0, 1]] }],
        })
      ).status,
    ).toBe(204);
    await cql.execute(`DROP KEYSPACE ${KEYSPACE}`);

    const first = await gw.call('POST', '/api/v1/datapoints/query', { body: pointQuery });
    expect(first.status).toBe(503);
    expect(first.json).toEqual({
      errors: [
        `the cassandra store is unavailable: keyspace ${KEYSPACE} does not exist; re-creating KairosDB's tables`,
      ],
    });

    const written = await restUntilServed(() =>
      gw.call('POST', '/api/v1/datapoints', { body: [{ name: 'up', tags: { host: 'a' }, datapoints: [[T0, 1]] }] }),
    );
    expect(written.status).toBe(204);
    expect(await tablesOf(KEYSPACE)).toEqual([...TABLE_NAMES].sort());
    const read = await gw.call('POST', '/api/v1/datapoints/query', { body: pointQuery });
    expect(read.status).toBe(200);
    expect(read.json).toEqual(pointAnswer);
  });
});

describe('one table is dropped while the gateway is connected', () => {
  it('answers a read of row_keys 503 naming the table, re-creates only that table, and serves again', async () => {
    const { gw, log } = await connectedGateway();
    expect((await gw.graphql(WRITE)).body).toEqual(WRITTEN);
    // The read's statements are prepared now: the node forgets row_keys.select with the table, and preparing it again fails.
    expect((await gw.graphql(READ)).body).toEqual(READ_BACK);
    await cql.execute(`DROP TABLE ${KEYSPACE}.row_keys`);

    const first = await gw.graphql(READ);
    expect(first.status).toBe(503);
    expect(first.body).toEqual(
      unavailableAt(
        'points',
        `table ${KEYSPACE}.row_keys or its keyspace may be gone (statement row_keys.select could not be prepared again)`,
      ),
    );
    await graphqlUntilServed(gw, READ);
    expect(recoveryLines(log)).toEqual([
      "warn: KairosDB's schema is gone; re-creating what is missing",
      `warn: re-created ${KEYSPACE}.row_keys: data written before it was lost may be missing`,
      "info: KairosDB's schema repaired",
    ]);
    const [started, lost, ended] = log.filter(
      (line) => line.message.startsWith("KairosDB's schema") || line.message.includes('re-created'),
    );
    expect(started!.fields).toEqual({
      keyspace: KEYSPACE,
      reason: `table ${KEYSPACE}.row_keys or its keyspace may be gone (statement row_keys.select could not be prepared again)`,
    });
    expect(lost!.fields).toEqual({
      keyspace: KEYSPACE,
      objects: [`${KEYSPACE}.row_keys`],
      catalog: `keyspace ${KEYSPACE} without ${KEYSPACE}.row_keys`,
      node: 'every table it lists answers',
    });
    expect(ended!.fields).toEqual({
      keyspace: KEYSPACE,
      attempts: 1,
      recreated: [`${KEYSPACE}.row_keys`],
      spec: { unit: 'MILLISECONDS', width: 1_814_400_000 },
    });

    expect(await tablesOf(KEYSPACE)).toEqual([...TABLE_NAMES].sort());
    // Nothing else was dropped or re-created: the point and its row time are still there, only its series is not.
    expect(await countOf('data_points')).toBe(1);
    expect(await countOf('row_key_time_index')).toBe(1);
    expect(await countOf('row_keys')).toBe(0);
    expect((await gw.graphql(READ)).body).toEqual({ data: { points: [] } });
    expect((await gw.graphql(WRITE)).body).toEqual(WRITTEN);
    expect((await gw.graphql(READ)).body).toEqual(READ_BACK);
  });

  it('answers a write 503 when data_points is gone (its insert cannot be prepared again), re-creates it with its options, and writes again', async () => {
    const { gw } = await connectedGateway();
    expect((await gw.graphql(WRITE)).body).toEqual(WRITTEN);
    await cql.execute(`DROP TABLE ${KEYSPACE}.data_points`);

    const first = await gw.graphql(WRITE);
    expect(first.status).toBe(503);
    expect(first.body).toEqual(
      unavailableAt(
        'addPoints',
        `table ${KEYSPACE}.data_points or its keyspace may be gone (statement data_points.insert could not be prepared again)`,
      ),
    );
    await graphqlUntilServed(gw, WRITE);

    expect(await tablesOf(KEYSPACE)).toEqual([...TABLE_NAMES].sort());
    expect(await commentOf('data_points')).toBe(COMMENT);
    expect((await gw.graphql(READ)).body).toEqual(READ_BACK);
  });
});

describe('a repair that fails', () => {
  it('is retried in the background, requests say why it failed, and a table re-created by someone else is taken as it is and reported lost', async () => {
    // string_index exists, so the option is not used at start; Cassandra refuses it when the table must be created.
    const { gw, log } = await connectedGateway({
      tableOptions: { string_index: 'WITH no_such_option = 1' },
      reconnectDelayMs: 200,
    });
    expect((await gw.graphql(WRITE)).body).toEqual(WRITTEN);
    await cql.execute(`DROP TABLE ${KEYSPACE}.string_index`);

    // A metric not written before: the store remembers the name it wrote, and writes only a new one to string_index.
    const first = await gw.graphql(WRITE.replace('metric: "up"', 'metric: "down"'));
    expect(first.status).toBe(503);
    expect(first.body).toEqual(
      unavailableAt(
        'addPoints',
        `table ${KEYSPACE}.string_index or its keyspace may be gone (statement string_index.insert could not be prepared again)`,
      ),
    );
    const refused = `the cassandra store is unavailable: table ${KEYSPACE}.string_index does not exist; re-creating KairosDB's tables (last attempt failed: Unknown property 'no_such_option')`;
    await waitFor(
      'a request told why the repair failed',
      async () => (await gw.graphql(READ)).body.errors?.[0]?.message === refused,
      RECOVERY_MS,
    );
    const rest = await gw.call('POST', '/api/v1/datapoints/query', { body: pointQuery });
    expect(rest.status).toBe(503);
    expect(rest.json).toEqual({ errors: [refused] });

    // Requests do not start attempts while one repair is under way, so serving again proves the background retry.
    await cql.execute(
      `CREATE TABLE ${KEYSPACE}.string_index (key blob, column1 text, value blob, PRIMARY KEY ((key), column1))`,
    );
    await graphqlUntilServed(gw, WRITE);
    // Every attempt failed the same way, which is logged once, with what the catalog listed and what the node answered.
    expect(log.filter((line) => line.message.startsWith('cannot re-create')).map((line) => line.fields)).toEqual([
      {
        keyspace: KEYSPACE,
        catalog: `keyspace ${KEYSPACE} without ${KEYSPACE}.string_index`,
        node: 'every table it lists answers',
        err: "Unknown property 'no_such_option'",
        failures: 1,
        retryMs: 200,
      },
    ]);
    // The table someone else made is a new one (its id changed): what was written to the old one is lost, and said so.
    expect(recoveryLines(log)).toEqual([
      "warn: KairosDB's schema is gone; re-creating what is missing",
      `warn: ${KEYSPACE}.string_index re-created by another client: data written before it was lost may be missing`,
      "info: KairosDB's schema repaired",
    ]);
    const ended = log.find((line) => line.message === "KairosDB's schema repaired")!;
    expect(ended.fields).toMatchObject({
      keyspace: KEYSPACE,
      recreated: [`${KEYSPACE}.string_index`],
      spec: { unit: 'MILLISECONDS', width: 1_814_400_000 },
    });
    expect((ended.fields as { attempts: number }).attempts).toBeGreaterThan(1);
    expect((await gw.graphql(READ)).body).toEqual(READ_BACK);
    expect((await gw.call('GET', '/api/v1/metricnames')).json).toEqual({ results: ['up'] });
  });
});
