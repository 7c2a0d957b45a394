/**
 * The store's life with a Cassandra node that comes back different, on nodes this suite boots itself (run.sh
 * --restartable) while gateways serve them: a node killed with -9 and relaunched on its data (--crash-safe: every
 * acknowledged point back), a table and the keyspace dropped by an operator, KairosDB's own DDL on the keyspace, the
 * node replaced by an empty one on the same address, and a node with `unsafesystem` killed and relaunched half-loaded
 * (its catalog lists the keyspace, its statements say it does not exist). For each: recovery without a gateway
 * restart (the first write after it acknowledged), 503 STORE_UNAVAILABLE with Retry-After meanwhile, and what was lost
 * reported in the log, on /ready and on /metrics. Measured recovery times are printed (`[lifecycle] ...`).
 */
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CassandraStore, type CassandraStoreOptions } from '../../src/store/cassandra/cassandra-store.js';
import { TABLE_NAMES } from '../../src/store/cassandra/options.js';
import { startRestartableCassandra, type RestartableCassandra } from '../support/cassandra-server.js';
import { startRestGateway, type RestGateway, type RestResponse } from '../rest/rest-client.js';
import { waitFor } from './cassandra-stores.js';

/** The target of the issue: a gateway serves again within this of the node answering CQL. */
const RECOVERY_TARGET_MS = 15_000;
const T0 = 1_714_557_600_000;
const HOUR = 3_600_000;
const TABLES = [...TABLE_NAMES];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface LogLine {
  readonly level: 'info' | 'warn';
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

interface Served {
  readonly gw: RestGateway;
  readonly store: CassandraStore;
  readonly log: LogLine[];
}

const opened: Served[] = [];

async function closeAll(): Promise<void> {
  for (const { gw, store } of opened.splice(0)) {
    await gw.close();
    await store.close();
  }
}

/** A connected gateway over a store of `keyspace` on `node`, and the store's log. */
async function serve(
  node: RestartableCassandra,
  keyspace: string,
  options: Partial<CassandraStoreOptions> = {},
): Promise<Served> {
  const log: LogLine[] = [];
  const store = await CassandraStore.open({
    contactPoints: [node.contactPoint],
    localDataCenter: node.localDataCenter,
    keyspace,
    writeConsistency: 'ONE',
    ...options,
    log: {
      info: (fields, message) => void log.push({ level: 'info', message, fields: fields as Record<string, unknown> }),
      warn: (fields, message) => void log.push({ level: 'warn', message, fields: fields as Record<string, unknown> }),
    },
  });
  const gw = await startRestGateway(store);
  const served = { gw, store, log };
  opened.push(served);
  return served;
}

async function plain(node: RestartableCassandra): Promise<cassandra.Client> {
  const client = new cassandra.Client({
    contactPoints: [node.contactPoint],
    localDataCenter: node.localDataCenter,
    protocolOptions: { maxVersion: 4 },
    socketOptions: { readTimeout: 60_000 },
  });
  await client.connect();
  return client;
}

/** `count` points of one series, a second apart from `startMs`, as KairosDB's REST API takes them. */
function points(metric: string, startMs: number, count: number, host = 'a'): unknown {
  return [
    { name: metric, tags: { host }, datapoints: Array.from({ length: count }, (_, i) => [startMs + i * 1000, i]) },
  ];
}

async function write(gw: RestGateway, body: unknown): Promise<RestResponse> {
  return gw.call('POST', '/api/v1/datapoints', { body });
}

/** Points the gateway reads back of `metric` in [from, to]: REST's sample_size. */
async function pointsRead(gw: RestGateway, metric: string, from: number, to: number): Promise<number> {
  const answer = await gw.call('POST', '/api/v1/datapoints/query', {
    body: { start_absolute: from, end_absolute: to, metrics: [{ name: metric }] },
  });
  expect(answer.status).toBe(200);
  return (answer.json as { queries: { sample_size: number }[] }).queries[0]!.sample_size;
}

/**
 * Writes one point every 200 ms until the gateway acknowledges one; every answer before must be a 503
 * STORE_UNAVAILABLE with a Retry-After. Returns how long it took and the refusals' messages, each once.
 */
async function untilWritten(
  gw: RestGateway,
  metric: string,
  limitMs = 60_000,
): Promise<{ ms: number; refused: number; retryAfter: Set<string>; messages: Set<string> }> {
  const started = performance.now();
  const messages = new Set<string>();
  const retryAfter = new Set<string>();
  let refused = 0;
  for (;;) {
    const answer = await write(gw, points(metric, T0 + 10 * HOUR, 1));
    if (answer.status === 204) return { ms: performance.now() - started, refused, retryAfter, messages };
    expect(answer.status, answer.text).toBe(503);
    expect(answer.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    retryAfter.add(answer.headers['retry-after']!);
    messages.add(((answer.json as { errors: string[] }).errors[0] ?? '').replace(/\d+\.\d+\.\d+\.\d+:\d+/g, '<host>'));
    refused++;
    if (performance.now() - started > limitMs)
      throw new Error(`no write acknowledged within ${limitMs} ms; refusals: ${[...messages].join(' | ')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface Readiness {
  readonly status: string;
  readonly hosts: unknown[];
  readonly recreated?: { object: string; at: string; by: string; why: string }[];
}

async function readiness(gw: RestGateway): Promise<Readiness> {
  const answer = await fetch(`${gw.url}/ready`);
  expect(answer.status).toBe(200);
  return (await answer.json()) as Readiness;
}

/** The value of a `kairograph_schema_*` series of the primary source, or undefined when it has none. */
async function metric(gw: RestGateway, name: string, labels = ''): Promise<number | undefined> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{source="kairosdb"${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function recreationCounts(gw: RestGateway): Promise<{ keyspace: number | undefined; table: number | undefined }> {
  return {
    keyspace: await metric(gw, 'kairograph_schema_recreated_total', ',kind="keyspace"'),
    table: await metric(gw, 'kairograph_schema_recreated_total', ',kind="table"'),
  };
}

/** The store's log lines that say what was lost. */
function lossLines(log: LogLine[]): string[] {
  return log
    .filter((line) => line.message.includes('data written before it was lost may be missing'))
    .map((line) => `${line.level}: ${line.message}`);
}

/** KairosDB 1.3's own DDL at start (ClusterConnection), in its order and words; `table_create_with` empty, as Cassandra 4+ needs. */
function kairosdbDdl(keyspace: string): string[] {
  return [
    `CREATE KEYSPACE IF NOT EXISTS ${keyspace} WITH REPLICATION = {'class': 'SimpleStrategy','replication_factor' : 1}`,
    `CREATE TABLE IF NOT EXISTS ${keyspace}.data_points (key blob, column1 blob, value blob, PRIMARY KEY ((key), column1))`,
    `CREATE TABLE IF NOT EXISTS ${keyspace}.row_key_index (key blob, column1 blob, value blob, PRIMARY KEY ((key), column1))`,
    `CREATE TABLE IF NOT EXISTS ${keyspace}.string_index (key blob, column1 text, value blob, PRIMARY KEY ((key), column1))`,
    `CREATE TABLE IF NOT EXISTS ${keyspace}.row_keys (metric text, table_name text, row_time timestamp, data_type text, tags frozen<map<text, text>>, mtime timeuuid static, value text, PRIMARY KEY ((metric, table_name, row_time), data_type, tags))`,
    `CREATE TABLE IF NOT EXISTS ${keyspace}.tag_indexed_row_keys (metric text, table_name text, row_time timestamp, single_tag_pair text, tag_collection_hash int, data_type text, tags frozen<map<text, text>>, mtime timeuuid static, value text, PRIMARY KEY ((metric, table_name, row_time, single_tag_pair), data_type, tag_collection_hash, tags))`,
    `CREATE TABLE IF NOT EXISTS ${keyspace}.row_key_time_index (metric text, table_name text, row_time timestamp, value text, PRIMARY KEY ((metric), table_name, row_time))`,
    `CREATE TABLE IF NOT EXISTS ${keyspace}.spec (spec_type text, name text, value text, PRIMARY KEY ((spec_type), name))`,
    `CREATE TABLE IF NOT EXISTS ${keyspace}.service_index (service text, service_key text, key text, mtime timeuuid static, value text, PRIMARY KEY ((service, service_key), key))`,
  ];
}

function report(what: string, ms: number, extra = '', messages?: Set<string>): void {
  console.log(
    `[lifecycle] ${what}: ${(ms / 1000).toFixed(1)} s${extra}${messages ? `\n  refusals: ${[...messages].join('\n  refusals: ')}` : ''}`,
  );
}

describe('a node with crash-safe settings (run.sh --crash-safe) that crashes, loses its schema, and is replaced', () => {
  const KS = 'lc_safe';
  let node: RestartableCassandra;
  /** An operator's client; made again after the node was killed (its driver would wait out its own reconnection). */
  let operator: cassandra.Client | undefined;
  const cql = async (statement: string) => (operator ??= await plain(node)).execute(statement);
  const crash = async () => {
    await operator?.shutdown();
    operator = undefined;
    await node.kill();
  };
  let main: Served;

  beforeAll(async () => {
    node = await startRestartableCassandra({ heap: '512m', crashSafe: true });
    main = await serve(node, KS);
  });
  afterAll(async () => {
    await closeAll();
    await operator?.shutdown();
    await node?.stop();
  });

  it('kill -9, relaunched on its data: every acknowledged point is back, 503 with Retry-After meanwhile, nothing reported lost', {
    timeout: 120_000,
  }, async () => {
    const { gw, log } = main;
    let acknowledged = 0;
    for (let batch = 0; batch < 10; batch++) {
      const answer = await write(gw, points('crash', T0 + batch * 2000 * 1000, 2000));
      expect(answer.status).toBe(204);
      acknowledged += 2000;
    }
    await crash();
    const down = await write(gw, points('crash', T0 + HOUR * 9, 1));
    expect(down.status).toBe(503);
    expect(down.headers['retry-after']).toBe('1');
    expect((down.json as { errors: string[] }).errors[0]).toMatch(/^the cassandra store is unavailable: /);
    expect((await fetch(`${gw.url}/ready`)).status).toBe(503);

    const bootMs = await node.relaunch('own');
    const back = await untilWritten(gw, 'crash.after');
    report(
      'kill -9 + relaunch on its data (crash-safe): first write acknowledged after the node answered CQL',
      back.ms,
      ` (node boot ${(bootMs / 1000).toFixed(1)} s, ${back.refused} refusals, Retry-After ${[...back.retryAfter].join(',')})`,
      back.messages,
    );
    expect(back.ms).toBeLessThan(RECOVERY_TARGET_MS);
    expect(await pointsRead(gw, 'crash', T0, T0 + 20_000 * 1000)).toBe(acknowledged);
    expect(await pointsRead(gw, 'crash.after', T0, T0 + 11 * HOUR)).toBe(1);
    expect(await readiness(gw)).toEqual({
      status: 'ready',
      hosts: [{ address: node.contactPoint, datacenter: node.localDataCenter, up: true }],
    });
    expect(lossLines(log)).toEqual([]);
    expect(await recreationCounts(gw)).toEqual({ keyspace: 0, table: 0 });
    expect(await metric(gw, 'kairograph_schema_last_recreation_timestamp_seconds')).toBeUndefined();
  });

  it("KairosDB's start-up DDL on the complete keyspace changes nothing: every request served meanwhile, nothing reported", async () => {
    const { gw, log } = main;
    const before = log.length;
    let stop = false;
    const statuses: number[] = [];
    const loop = (async () => {
      for (let i = 0; !stop; i++) statuses.push((await write(gw, points('kairosdb.ddl', T0 + i * 1000, 1))).status);
    })();
    try {
      for (const statement of kairosdbDdl(KS)) await cql(statement);
      // The store's look at the catalog (every 10 s) and requests see the same tables: no repair, no loss.
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      stop = true;
      await loop;
    }
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set([204]));
    expect(log.slice(before)).toEqual([]);
    expect(await readiness(gw)).not.toHaveProperty('recreated');
  });

  it('a table dropped by an operator: 503 with Retry-After until it is re-created, then reported lost', async () => {
    const { gw, log } = main;
    expect((await write(gw, points('dropped.table', T0, 100))).status).toBe(204);
    expect(await pointsRead(gw, 'dropped.table', T0, T0 + HOUR)).toBe(100);
    await cql(`DROP TABLE ${KS}.row_keys`);
    const dropped = performance.now();
    const back = await untilWritten(gw, 'dropped.table.after');
    report(
      'table dropped: first write acknowledged after the DROP',
      performance.now() - dropped,
      ` (${back.refused} refusals, Retry-After ${[...back.retryAfter].join(',')})`,
      back.messages,
    );
    expect(back.ms).toBeLessThan(RECOVERY_TARGET_MS);
    expect(lossLines(log)).toEqual([`warn: re-created ${KS}.row_keys: data written before it was lost may be missing`]);
    // The series index is gone with the table: old ranges answer empty, not an error.
    expect(await pointsRead(gw, 'dropped.table', T0, T0 + HOUR)).toBe(0);
    const ready = await readiness(gw);
    expect(ready.recreated).toEqual([
      {
        object: `${KS}.row_keys`,
        at: expect.stringMatching(ISO),
        by: 'gateway',
        why: 'the table was gone from the catalog',
      },
    ]);
    expect(await recreationCounts(gw)).toEqual({ keyspace: 0, table: 1 });
    expect(await metric(gw, 'kairograph_schema_last_recreation_timestamp_seconds')).toBe(
      Date.parse(ready.recreated![0]!.at) / 1000,
    );
    expect(await metric(gw, 'kairograph_schema_repair_failures_total')).toBe(0);
    expect(await metric(gw, 'kairograph_schema_repairing')).toBe(0);
  });

  it('the keyspace dropped by an operator: re-created with its tables, reported lost, old ranges empty', async () => {
    const { gw, log } = main;
    expect((await write(gw, points('dropped.keyspace', T0, 100))).status).toBe(204);
    await cql(`DROP KEYSPACE ${KS}`);
    const dropped = performance.now();
    const back = await untilWritten(gw, 'dropped.keyspace.after');
    report(
      'keyspace dropped: first write acknowledged after the DROP',
      performance.now() - dropped,
      ` (${back.refused} refusals, Retry-After ${[...back.retryAfter].join(',')})`,
      back.messages,
    );
    expect(back.ms).toBeLessThan(RECOVERY_TARGET_MS);
    expect(lossLines(log).at(-1)).toBe(
      `warn: re-created ${KS} and its 8 tables: data written before it was lost may be missing`,
    );
    expect(await pointsRead(gw, 'dropped.keyspace', T0, T0 + HOUR)).toBe(0);
    expect(await pointsRead(gw, 'dropped.keyspace.after', T0, T0 + 11 * HOUR)).toBe(1);
    const ready = await readiness(gw);
    expect(ready.recreated!.map(({ object, by, why }) => ({ object, by, why }))).toEqual([
      { object: KS, by: 'gateway', why: 'the keyspace was gone from the catalog' },
      ...TABLES.map((table) => ({
        object: `${KS}.${table}`,
        by: 'gateway',
        why: 'the table was gone from the catalog',
      })),
    ]);
    expect(await recreationCounts(gw)).toEqual({ keyspace: 1, table: 9 });
  });

  it('the keyspace dropped and re-created by KairosDB before the gateway notices: served meanwhile (old ranges empty), and the loss found within 10 s', {
    timeout: 60_000,
  }, async () => {
    // KairosDB made the keyspace; a store of its own, whose first look at the catalog comes a known 10 s after it was made.
    for (const statement of kairosdbDdl('lc_kairos')) await cql(statement);
    const opened = performance.now();
    const kairos = await serve(node, 'lc_kairos');
    expect((await write(kairos.gw, points('before', T0, 50))).status).toBe(204);
    await cql('DROP KEYSPACE lc_kairos');
    for (const statement of kairosdbDdl('lc_kairos')) await cql(statement);
    const remade = performance.now();
    expect(remade - opened, 'the DROP and KairosDB DDL ended before the first look at the catalog').toBeLessThan(9000);
    // The driver prepares its statements again on KairosDB's new tables: answers are served, and empty.
    expect(await pointsRead(kairos.gw, 'before', T0, T0 + HOUR)).toBe(0);
    // The look at the catalog starts a repair (a moment of 503 on /ready and requests), which reports the loss.
    await waitFor(
      'the loss reported',
      async () => {
        const answer = await fetch(`${kairos.gw.url}/ready`);
        return answer.status === 200 && ((await answer.json()) as Readiness).recreated !== undefined;
      },
      15_000,
    );
    report("keyspace re-created by KairosDB's DDL: loss reported after the DDL ended", performance.now() - remade);
    expect(lossLines(kairos.log)).toEqual([
      `warn: ${TABLES.map((t) => `lc_kairos.${t}`).join(', ')} re-created by another client: data written before it was lost may be missing`,
    ]);
    const ready = await readiness(kairos.gw);
    expect(ready.recreated!.map(({ object, by }) => ({ object, by }))).toEqual(
      TABLES.map((table) => ({ object: `lc_kairos.${table}`, by: 'other' })),
    );
    expect(ready.recreated![0]!.why).toMatch(/^its table id changed from [0-9a-f-]{36} to [0-9a-f-]{36}$/);
    expect(await recreationCounts(kairos.gw)).toEqual({ keyspace: 0, table: 8 });
    expect((await write(kairos.gw, points('after', T0, 1))).status).toBe(204);
    expect(await pointsRead(kairos.gw, 'after', T0, T0 + HOUR)).toBe(1);
  });

  it('the node replaced by an empty one on the same address: the keyspace re-created, reported lost', {
    timeout: 120_000,
  }, async () => {
    const { gw, log, store } = main;
    const losses = lossLines(log).length;
    const attempts = store.schemaRepair.attempts;
    const failures = store.schemaRepair.failures;
    expect((await write(gw, points('replaced', T0, 100))).status).toBe(204);
    await crash();
    const bootMs = await node.relaunch('empty');
    const back = await untilWritten(gw, 'replaced.after');
    report(
      'node replaced by an empty one: first write acknowledged after the node answered CQL',
      back.ms,
      ` (node boot ${(bootMs / 1000).toFixed(1)} s, ${back.refused} refusals, Retry-After ${[...back.retryAfter].join(',')})`,
      back.messages,
    );
    expect(back.ms).toBeLessThan(RECOVERY_TARGET_MS);
    expect(lossLines(log).slice(losses)).toEqual([
      `warn: re-created ${KS} and its 8 tables: data written before it was lost may be missing`,
    ]);
    expect(await pointsRead(gw, 'replaced', T0, T0 + HOUR)).toBe(0);
    const ready = await readiness(gw);
    expect(ready.recreated!.map(({ object }) => object)).toEqual([KS, ...TABLES.map((t) => `${KS}.${t}`)]);
    expect(await recreationCounts(gw)).toEqual({ keyspace: 2, table: 17 });
    // One repair, retried only while the node's driver connections came back.
    expect(store.schemaRepair.attempts - attempts).toBe(store.schemaRepair.failures - failures + 1);
  });
});

describe('a node with unsafesystem (run.sh without --crash-safe) killed with -9 and relaunched half-loaded', () => {
  let node: RestartableCassandra;
  let cql: cassandra.Client;

  beforeAll(async () => {
    node = await startRestartableCassandra({ heap: '512m' });
  });
  afterAll(async () => {
    await closeAll();
    await cql?.shutdown();
    await node?.stop();
  });

  it('a gateway re-creates what the node lists but does not serve and reports it lost; one that may not create backs off, logs each cause once, and counts', {
    timeout: 150_000,
  }, async () => {
    const auto = await serve(node, 'lc_auto');
    // The keyspace of the gateway that may not create is made by one that may, as an operator would.
    await (
      await CassandraStore.open({
        contactPoints: [node.contactPoint],
        localDataCenter: node.localDataCenter,
        keyspace: 'lc_manual',
        writeConsistency: 'ONE',
      })
    ).close();
    const manual = await serve(node, 'lc_manual', { createSchema: false, reconnectDelayMs: 100, schemaCheckMs: 0 });
    for (const { gw } of [auto, manual]) expect((await write(gw, points('lost', T0, 2000))).status).toBe(204);

    await node.kill();
    const bootMs = await node.relaunch('own');
    const ready = performance.now();

    // The half-loaded node, as the issue found it: its catalog lists the keyspace and its tables, statements refuse it.
    cql = await plain(node);
    const listed = await cql.execute(
      'SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?',
      ['lc_manual'],
      { prepare: true },
    );
    expect(listed.rows.map((row) => String(row.get('table_name'))).sort()).toEqual([...TABLES].sort());
    await expect(cql.execute('SELECT value FROM lc_manual.spec')).rejects.toThrow('keyspace lc_manual does not exist');

    // The gateway that may create: serves again, and says what was lost.
    const back = await untilWritten(auto.gw, 'lost.after');
    const recoveredMs = performance.now() - ready;
    report(
      'unsafesystem, kill -9 + relaunch (half-loaded): first write acknowledged after the node answered CQL',
      recoveredMs,
      ` (node boot ${(bootMs / 1000).toFixed(1)} s, ${back.refused} refusals, Retry-After ${[...back.retryAfter].join(',')})`,
      back.messages,
    );
    expect(recoveredMs).toBeLessThan(RECOVERY_TARGET_MS);
    expect(lossLines(auto.log)).toEqual([
      'warn: re-created lc_auto and its 8 tables: data written before it was lost may be missing',
    ]);
    const lost = auto.log.find((line) => line.message.startsWith('re-created'))!;
    expect(lost.fields).toEqual({
      keyspace: 'lc_auto',
      objects: ['lc_auto', ...TABLES.map((t) => `lc_auto.${t}`)],
      catalog: 'keyspace lc_auto and its 8 tables',
      node: 'keyspace lc_auto does not exist',
    });
    const autoReady = await readiness(auto.gw);
    expect(autoReady.recreated!.map(({ object, by, why }) => ({ object, by, why }))).toEqual([
      {
        object: 'lc_auto',
        by: 'gateway',
        why: 'the catalog listed the keyspace, the node answered: keyspace lc_auto does not exist',
      },
      ...TABLES.map((t) => ({
        object: `lc_auto.${t}`,
        by: 'gateway',
        why: 'the catalog listed the table, the node answered: keyspace lc_auto does not exist',
      })),
    ]);
    expect(await recreationCounts(auto.gw)).toEqual({ keyspace: 1, table: 8 });
    expect(await pointsRead(auto.gw, 'lost', T0, T0 + HOUR)).toBe(0);
    expect(await pointsRead(auto.gw, 'lost.after', T0, T0 + 11 * HOUR)).toBe(1);

    // The gateway that may not create: held in the half-loaded state, it backs off and keeps saying why.
    const { gw, store, log } = manual;
    await waitFor(
      'a repair under way',
      async () => {
        await write(gw, points('lost', T0 + HOUR, 1));
        return store.schemaRepair.repairing;
      },
      20_000,
    );
    const firstFailures = await metric(gw, 'kairograph_schema_repair_failures_total');
    // The wait after each failure, sampled more often than the shortest one lasts (100 ms).
    const delays = new Map<number, number>();
    const sampled = performance.now();
    while (!delays.has(6)) {
      const { failures, retryDelayMs } = store.schemaRepair;
      if (retryDelayMs !== undefined) delays.set(failures, retryDelayMs);
      if (performance.now() - sampled > 20_000)
        throw new Error(`six failed attempts did not happen within 20 s: ${JSON.stringify([...delays])}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(Object.fromEntries([...delays].filter(([failures]) => failures <= 6))).toEqual({
      1: 100,
      2: 200,
      3: 400,
      4: 800,
      5: 800,
      6: 800,
    });
    expect(await metric(gw, 'kairograph_schema_repair_failures_total')).toBeGreaterThan(firstFailures!);
    expect(await metric(gw, 'kairograph_schema_repairing')).toBe(1);
    const refused = await write(gw, points('lost', T0 + HOUR, 1));
    expect(refused.status).toBe(503);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const halfLoaded = `keyspace lc_manual does not exist, though the catalog lists lc_manual, ${TABLES.map((t) => `lc_manual.${t}`).join(', ')}`;
    expect(refused.json).toEqual({
      errors: [
        `the cassandra store is unavailable: ${halfLoaded}; waiting for KairosDB's tables to be created (CASSANDRA_CREATE_SCHEMA is false)`,
      ],
    });
    expect((await fetch(`${gw.url}/ready`)).status).toBe(503);
    const causes = () =>
      log
        .filter((line) => line.message === "KairosDB's schema is still incomplete; checking again in the background")
        .map((line) => line.fields);
    expect(causes()).toEqual([
      {
        keyspace: 'lc_manual',
        catalog: 'keyspace lc_manual and its 8 tables',
        node: 'keyspace lc_manual does not exist',
        err: `${halfLoaded}; not created, CASSANDRA_CREATE_SCHEMA is false`,
        failures: 1,
        retryMs: 100,
      },
    ]);

    // The operator creates the keyspace: the node's answer changes, which is logged once more.
    await cql.execute(
      "CREATE KEYSPACE IF NOT EXISTS lc_manual WITH REPLICATION = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    );
    await waitFor('the new cause logged', () => causes().length === 2, 10_000);
    const answers = TABLES.map((t) => `table lc_manual.${t} does not exist`).join('; ');
    expect(causes()[1]).toMatchObject({ catalog: 'keyspace lc_manual and its 8 tables', node: answers });
    // Then its tables, with KairosDB's DDL: the next attempt finds them, and the old tables' data reported lost.
    for (const statement of kairosdbDdl('lc_manual').slice(1)) await cql.execute(statement);
    const created = performance.now();
    const served = await untilWritten(gw, 'lost.after');
    report(
      'unsafesystem, CASSANDRA_CREATE_SCHEMA=false: first write acknowledged after the operator created the tables',
      performance.now() - created,
      ` (${served.refused} refusals)`,
    );
    expect(causes()).toHaveLength(2);
    expect(lossLines(log)).toEqual([
      `warn: ${TABLES.map((t) => `lc_manual.${t}`).join(', ')} re-created by another client: data written before it was lost may be missing`,
    ]);
    expect((await readiness(gw)).recreated!.map(({ object, by }) => `${by} ${object}`)).toEqual(
      TABLES.map((t) => `other lc_manual.${t}`),
    );
    expect(await pointsRead(gw, 'lost', T0, T0 + HOUR)).toBe(0);
    expect(await metric(gw, 'kairograph_schema_repairing')).toBe(0);
  });
});
