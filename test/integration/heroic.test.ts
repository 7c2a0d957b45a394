/**
 * Heroic's table on a real Cassandra: rows laid out with plain CQL in Heroic's exact bytes (the reference's worked
 * examples as hex, not our encoder) are found by the catalogue's scan, listed by `metricNames`, `tagValues`, and
 * answered by `points` and `series` across a partition boundary; resource entries are `resource:` tags; writes land in
 * Heroic's bytes and are known at once; legacy keys are read and never written; keys in neither form are counted.
 */
import type cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { loadConfig } from '../../src/gateway/config.js';
import { copySeries } from '../../src/copy/copy.js';
import { IndexLoaders } from '../../src/sources/index-loaders.js';
import { KairosdbSource } from '../../src/sources/kairosdb/kairosdb-source.js';
import { openHeroicSource } from '../../src/sources/heroic/open-heroic-source.js';
import type { HeroicSchema } from '../../src/sources/heroic/partitions.js';
import { encodeKey } from '../../src/sources/heroic/row-key.js';
import type { HeroicSourceSettings } from '../../src/sources/heroic/heroic-settings.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { scanAll } from '../support/store-reads.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { plainClient, testNode, waitFor } from './cassandra-stores.js';
import { clientSettings } from '../../src/gateway/layer-options.js';

afterAll(removeTempDirs);

const HOUR = 3_600_000;
/** Reference §2.3: cpu {host: a, role: web}, base 1599875317015; the next ng partition starts 2^31 − 1 ms later. */
const B1 = 1_599_875_317_015;
const W = 2_147_483_647;
const B2 = B1 + W;
const CPU_A_B1 = '036370750204686f7374016104726f6c65037765620097f9fefec62d';
/** Reference §3: the same series as a legacy key, base 1597727834112 (2^32 partitions). */
const LEGACY_CPU_A =
  '0024 000402637075 00 001a 0002 000502686f7374 00020261 000502726f6c65 000402776562 00 00 0008 0000017400000000 00'.replace(
    / /g,
    '',
  );
const LEGACY_BASE = 1_597_727_834_112;
/** The next legacy partition starts 746 ms after B2. */
const LEGACY_BASE2 = LEGACY_BASE + 2 ** 32;

/** Points every 10 minutes from two hours before the ng boundary B2 to three after, and one exactly on it. */
const F = Math.floor(B2 / HOUR) * HOUR - 2 * HOUR;
const TIMES = [...Array.from({ length: 31 }, (_, i) => F + i * 600_000), B2].sort((a, b) => a - b);
const valueA = (t: number) => (t - F) / 60_000;
const valueB = (t: number) => 1000 + (t - F) / 60_000;

const NG = 'kg_heroic_ng';
const LEGACY = 'kg_heroic_legacy';

let client: cassandra.Client;
let gw: TestGateway;
let primary: EmbeddedStore;

function settings(name: string, keyspace: string, schema: HeroicSchema): HeroicSourceSettings {
  const node = testNode();
  return {
    name,
    layout: 'heroic',
    schema,
    cassandra: { contactPoints: [node.contactPoint], localDataCenter: node.localDataCenter, keyspace },
    configure: false,
    catalogue: { kind: 'scan', path: tempDir(), refreshIntervalMs: 500 },
  };
}

const insert = (keyspace: string, key: Buffer | string, column: number, value: number) =>
  client.execute(
    `INSERT INTO ${keyspace}.metrics (metric_key, data_timestamp_offset, data_value) VALUES (?, ?, ?)`,
    [typeof key === 'string' ? Buffer.from(key, 'hex') : key, column, value],
    { prepare: true },
  );

const ngKey = (tags: Record<string, string>, resource: Record<string, string>, base: number) =>
  encodeKey('ng', { key: 'cpu', tags, resource }, base);

beforeAll(async () => {
  client = await plainClient();
  for (const keyspace of [NG, LEGACY]) {
    await client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
    await client.execute(
      `CREATE KEYSPACE ${keyspace} WITH REPLICATION = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
    );
  }
  // Heroic's tables.cql as it created the table, COMPACT STORAGE and all; the legacy keyspace as after DROP COMPACT STORAGE.
  await client.execute(
    `CREATE TABLE ${NG}.metrics (metric_key blob, data_timestamp_offset int, data_value double, PRIMARY KEY(metric_key, data_timestamp_offset)) WITH COMPACT STORAGE`,
  );
  await client.execute(
    `CREATE TABLE ${LEGACY}.metrics (metric_key blob, data_timestamp_offset int, data_value double, PRIMARY KEY(metric_key, data_timestamp_offset))`,
  );
  for (const t of TIMES) {
    const base = t < B2 ? B1 : B2;
    // host a by the reference's bytes in B1; host b carries a resource entry.
    await insert(NG, base === B1 ? CPU_A_B1 : ngKey({ host: 'a', role: 'web' }, {}, B2), t - base, valueA(t));
    await insert(NG, ngKey({ host: 'b', role: 'web' }, { instance: 'i-1' }, base), t - base, valueB(t));
    const legacyBase = t < LEGACY_BASE2 ? LEGACY_BASE : LEGACY_BASE2;
    const legacyKey =
      legacyBase === LEGACY_BASE
        ? LEGACY_CPU_A
        : encodeKey('legacy', { key: 'cpu', tags: { host: 'a', role: 'web' }, resource: {} }, LEGACY_BASE2);
    await insert(LEGACY, legacyKey, t - legacyBase - 2 ** 31, valueA(t));
  }
  // A key in neither form, and a legacy key in the ng table: counted, skipped.
  await insert(NG, 'ffffffff', 0, 1);
  await insert(NG, LEGACY_CPU_A, 0, 1);
  primary = await EmbeddedStore.open({ path: tempDir() });
  const config = loadConfig({ SEED_DEMO: 'false' });
  gw = await startGateway(
    primary,
    {},
    {
      layouts: [
        openHeroicSource(clientSettings(config), settings('heroic', NG, 'ng'), undefined),
        openHeroicSource(clientSettings(config), settings('old', LEGACY, 'legacy'), undefined),
      ],
    },
  );
  await waitFor(
    'a whole catalogue pass of both sources',
    async () => {
      const { body } = await gw.graphql('{ sources { name catalogue { passes } } }');
      const sources = (body.data?.['sources'] ?? []) as { name: string; catalogue: { passes: number } | null }[];
      return sources.filter((s) => s.catalogue !== null && s.catalogue.passes > 0).length === 2;
    },
    30_000,
  );
}, 180_000);

afterAll(async () => {
  await gw?.close();
  await primary?.close();
  await client?.shutdown();
});

describe('a heroic source', () => {
  it('lists itself with its catalogue: the partitions it found and the keys it skipped', async () => {
    const { body } = await gw.graphql(
      '{ sources { name layout writable catalogue { kind partitions undecodableKeys otherSchemaKeys uncataloguedKeys } } }',
    );
    expect(body.data?.['sources']).toEqual([
      { name: 'kairosdb', layout: 'kairosdb', writable: true, catalogue: null },
      {
        name: 'heroic',
        layout: 'heroic',
        writable: true,
        catalogue: { kind: 'scan', partitions: 4, undecodableKeys: 1, otherSchemaKeys: 1, uncataloguedKeys: 0 },
      },
      {
        name: 'old',
        layout: 'heroic',
        writable: false,
        catalogue: { kind: 'scan', partitions: 2, undecodableKeys: 0, otherSchemaKeys: 0, uncataloguedKeys: 0 },
      },
    ]);
  });

  it('answers metricNames, tagNames and tagValues from the catalogue, resource entries as resource: tags', async () => {
    const { body } = await gw.graphql(
      `{ names: metricNames(source: "heroic") tags: tagNames(metric: "cpu", from: ${F}, to: ${F + 5 * HOUR}, source: "heroic")
         hosts: tagValues(metric: "cpu", tag: "host", from: ${F}, to: ${F + 5 * HOUR}, source: "heroic")
         instances: tagValues(metric: "cpu", tag: "resource:instance", from: ${F}, to: ${F + 5 * HOUR}, source: "heroic")
         oldHosts: tagValues(metric: "cpu", tag: "host", from: ${F}, to: ${F + 5 * HOUR}, source: "old") }`,
    );
    expect(body).toEqual({
      data: {
        names: ['cpu'],
        tags: ['host', 'resource:instance', 'role'],
        hosts: ['a', 'b'],
        instances: ['i-1'],
        oldHosts: ['a'],
      },
    });
  });

  it('answers points across the partition boundary, with the point on it that Heroic itself never returns', async () => {
    const { body } = await gw.graphql(
      `{ points(metric: "cpu", from: ${F}, to: ${F + 5 * HOUR}, where: [{ tag: "host", eq: "a" }], source: "heroic") { tag(name: "host") points { epochMs value } } }`,
    );
    expect(body).toEqual({
      data: { points: [{ tag: 'a', points: TIMES.map((t) => ({ epochMs: t, value: valueA(t) })) }] },
    });
    const legacy = await gw.graphql(
      `{ points(metric: "cpu", from: ${F}, to: ${F + 5 * HOUR}, source: "old") { points { epochMs value } } }`,
    );
    expect(legacy.body).toEqual({
      data: { points: [{ points: TIMES.map((t) => ({ epochMs: t, value: valueA(t) })) }] },
    });
  });

  it('answers series: avg per hour grouped by host, and filtered by a resource tag', async () => {
    const hourly = (value: (t: number) => number) => {
      const buckets = new Map<number, number[]>();
      for (const t of TIMES.filter((t) => t <= F + 5 * HOUR - 1)) {
        const start = F + Math.floor((t - F) / HOUR) * HOUR;
        buckets.set(start, [...(buckets.get(start) ?? []), value(t)]);
      }
      return [...buckets].map(([epochMs, values]) => ({
        epochMs,
        value: values.reduce((a, b) => a + b, 0) / values.length,
      }));
    };
    const avg = `aggregators: [{ avg: { sampling: { value: 1, unit: HOURS } } }]`;
    const { body } = await gw.graphql(
      `{ series(metric: "cpu", from: ${F}, to: ${F + 5 * HOUR - 1}, ${avg}, groupBy: { tags: ["host"] }, source: "heroic") { tag(name: "host") points { epochMs value } } }`,
    );
    expect(body).toEqual({
      data: {
        series: [
          { tag: 'a', points: hourly(valueA) },
          { tag: 'b', points: hourly(valueB) },
        ],
      },
    });
    const byResource = await gw.graphql(
      `{ series(metric: "cpu", from: ${F}, to: ${F + 5 * HOUR - 1}, ${avg}, where: [{ tag: "resource:instance", eq: "i-1" }], source: "heroic") { tag(name: "host") points { epochMs value } } }`,
    );
    expect(byResource.body).toEqual({ data: { series: [{ tag: 'b', points: hourly(valueB) }] } });
  });

  it('writes rows as Heroic does, known to metricNames at once, and deletes them', async () => {
    const t = B2 + 5 * HOUR;
    const add = await gw.graphql(
      `mutation { addPoints(source: "heroic", series: [{ metric: "mem", tags: [{ name: "host", value: "c" }, { name: "resource:pod", value: "p-7" }], points: [{ time: ${t}, value: 2.5 }, { time: ${t + 1000}, value: 3 }] }]) { series points } }`,
    );
    expect(add.body).toEqual({ data: { addPoints: { series: 1, points: 2 } } });
    expect((await gw.graphql('{ metricNames(source: "heroic") }')).body).toEqual({
      data: { metricNames: ['cpu', 'mem'] },
    });
    const key = encodeKey('ng', { key: 'mem', tags: { host: 'c' }, resource: { pod: 'p-7' } }, B2);
    const rows = await client.execute(
      `SELECT data_timestamp_offset, data_value, TTL(data_value) AS ttl, WRITETIME(data_value) AS wt FROM ${NG}.metrics WHERE metric_key = ?`,
      [key],
      { prepare: true },
    );
    expect(rows.rows.map((r) => [r['data_timestamp_offset'], r['data_value'], r['ttl']])).toEqual([
      [t - B2, 2.5, null],
      [t + 1000 - B2, 3, null],
    ]);
    // Microsecond write times, as the driver Heroic used writes them.
    expect(Number(rows.rows[0]!['wt'])).toBeGreaterThan(Date.now() * 1000 - 60_000_000);
    const deleted = await gw.graphql(
      `mutation { deletePoints(metric: "mem", from: ${t}, to: ${t}, source: "heroic") { partitionsDeleted } }`,
    );
    expect(deleted.body.errors).toBeUndefined();
    const left = await gw.graphql(
      `{ points(metric: "mem", from: ${B2}, to: ${t + HOUR}, source: "heroic") { points { epochMs value } } }`,
    );
    expect(left.body).toEqual({ data: { points: [{ points: [{ epochMs: t + 1000, value: 3 }] }] } });
  });

  it('refuses writes it cannot hold, naming the field, and every write to a legacy source', async () => {
    const write = (source: string, series: string) =>
      gw.graphql(`mutation { addPoints(source: "${source}", series: [${series}]) { points } }`);
    const text = await write(
      'heroic',
      `{ metric: "m", tags: [{ name: "h", value: "x" }], type: STRING, points: [{ time: ${B2}, value: "up" }] }`,
    );
    expect(text.body.errors?.map((e) => [e.message, e.extensions?.['code']])).toEqual([
      [
        `series[0].type must be double or long: the heroic layout's values are doubles (got "string")`,
        'BAD_USER_INPUT',
      ],
    ]);
    const early = await write(
      'heroic',
      `{ metric: "m", tags: [{ name: "h", value: "x" }], points: [{ time: -1000, value: 1 }] }`,
    );
    expect(early.body.errors?.map((e) => e.message)).toEqual([
      `series[0].points[0].time must be at least 0: the heroic layout's partitions start there (got -1000)`,
    ]);
    const legacy = await write(
      'old',
      `{ metric: "m", tags: [{ name: "h", value: "x" }], points: [{ time: ${B2}, value: 1 }] }`,
    );
    expect(legacy.body.errors?.map((e) => e.message)).toEqual([
      `source is read-only: Heroic's legacy schema is read, never written (Heroic removed it in 2019) (got "old")`,
    ]);
  });

  it('is copied into the KairosDB layout by the copy tool, point for point, checked by reading both back', async () => {
    const heroic = openHeroicSource(
      clientSettings(loadConfig({ SEED_DEMO: 'false' })),
      settings('from', NG, 'ng'),
      undefined,
    );
    const store = await EmbeddedStore.open({ path: tempDir() });
    const kairosdb = new KairosdbSource('to', store);
    try {
      const range = { startMs: F, endMs: F + 5 * HOUR };
      const result = await copySeries({
        from: heroic,
        to: kairosdb,
        metrics: ['cpu'],
        range,
        statePath: join(tempDir(), 'copy.state'),
        cataloguePollMs: 50,
      });
      expect([result.points, result.series, result.mismatches]).toEqual([2 * TIMES.length, 2, []]);
      const copied = await gw.graphql(
        `{ points(metric: "cpu", from: ${F}, to: ${F + 5 * HOUR}, source: "heroic") { tags { name values } points { epochMs value } } }`,
      );
      const plan = await kairosdb.findSeries(new IndexLoaders(), 'cpu', range, () => true);
      const inKairosdb = await Promise.all(
        plan.partitions.map(async (key) => ({
          tags: { ...key.tags },
          points: (await scanAll(store, key, range.startMs, range.endMs)).map((p) => ({ epochMs: p.t, value: p.v })),
        })),
      );
      const byHost = new Map<string, { epochMs: number; value: unknown }[]>();
      for (const { tags, points } of inKairosdb)
        byHost.set(tags['host']!, [...(byHost.get(tags['host']!) ?? []), ...points]);
      expect(inKairosdb.map((s) => s.tags).sort((a, b) => a['host']!.localeCompare(b['host']!))).toEqual([
        { host: 'a', role: 'web' },
        { host: 'b', role: 'web', 'resource:instance': 'i-1' },
      ]);
      const fromHeroic = (
        copied.body.data!['points'] as { tags: { name: string; values: string[] }[]; points: unknown[] }[]
      ).map((s) => [s.tags.find((t) => t.name === 'host')!.values[0], s.points]);
      expect(fromHeroic).toEqual([
        ['a', byHost.get('a')!.sort((x, y) => x.epochMs - y.epochMs)],
        ['b', byHost.get('b')!.sort((x, y) => x.epochMs - y.epochMs)],
      ]);
    } finally {
      await heroic.close();
      await store.close();
    }
  });

  it('shows its catalogue on /metrics', async () => {
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    expect(text).toContain('kairograph_catalogue_skipped_keys{source="heroic",why="undecodable"} 1');
    expect(text).toContain('kairograph_catalogue_skipped_keys{source="heroic",why="other_schema"} 1');
    expect(text).toMatch(/kairograph_catalogue_passes\{source="old"\} [1-9]/);
  });
});
