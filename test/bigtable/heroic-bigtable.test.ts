/**
 * A heroic source on Bigtable against Google's emulator: rows written the way Heroic writes them (its key bytes spelled
 * here by hand, the `points` family, server timestamps, several versions of a cell, a resource variant, a
 * distributionPoints cell) by Google's Go client, read through GraphQL; Kairograph's writes read back as raw cells.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { copySeries } from '../../src/copy/copy.js';
import { sourcesFileOptions } from '../../src/gateway/layer-options.js';
import { loadSourcesFile } from '../../src/sources/sources-file.js';
import { openHeroicBigtableSource } from '../../src/sources/heroic/open-heroic-bigtable-source.js';
import type { HeroicBigtableSettings } from '../../src/sources/heroic/heroic-bigtable-settings.js';
import { KairosdbSource } from '../../src/sources/kairosdb/kairosdb-source.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { heroicWrite, readAllCells, type Cell, type Place } from '../support/heroic-writer.js';
import { sourcesFile } from '../support/sources-file.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const HOUR = 3_600_000;
const B1 = 390 * 2 ** 32;
const B2 = 391 * 2 ** 32;
const F = B2 - 3 * HOUR;
const T = B2 + 3 * HOUR;
/** Points of both series: across the boundary, on the second period's first millisecond too. */
const TIMES = [B2 - 2 * HOUR, B2 - HOUR, B2 - 1, B2, B2 + 1, B2 + HOUR, B2 + 2 * HOUR + 5];
const valueA = (t: number): number => (t - F) / HOUR;
const valueB = (t: number): number => 100 - (t - F) / 60_000;

/** A short string with two lengths (UTF-8 bytes, UTF-16 units), as Heroic's Bigtable key writes the series' strings. */
const two = (s: string): string =>
  `${hexByte(Buffer.byteLength(s))}${hexByte(s.length)}${Buffer.from(s).toString('hex')}`;
const one = (s: string): string => `${hexByte(s.length)}${Buffer.from(s).toString('hex')}`;
const hexByte = (n: number): string => n.toString(16).padStart(2, '0');
const long = (n: number): string => BigInt(n).toString(16).padStart(16, '0');
const offset = (n: number): string => n.toString(16).padStart(8, '0');
const double = (v: number): string => {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(v);
  return b.toString('hex');
};
/** cpu {host: a, role: web} at a base: key, 2 tags sorted, the base. */
const keyA = (base: number): string =>
  `${two('cpu')}02${two('host')}${two('a')}${two('role')}${two('web')}${long(base)}`;
/** cpu {host: b, role: web}, resource {instance: i-1}: the resource part is field 0 of one, its strings one length. */
const keyB = (base: number): string => {
  const payload = `01${one('instance')}${one('i-1')}`;
  return `${two('cpu')}02${two('host')}${two('b')}${two('role')}${two('web')}${long(base)}0100${hexByte(payload.length / 2)}${payload}`;
};
const baseOf = (t: number): number => t - (t % 2 ** 32);
const point = (key: (base: number) => string, t: number, v: number, micros?: number): Cell => ({
  row: key(baseOf(t)),
  family: 'points',
  qualifier: offset(t - baseOf(t)),
  value: double(v),
  ...(micros === undefined ? {} : { micros }),
});

let place: Place;
let gw: TestGateway;
let primary: EmbeddedStore;
let settings: HeroicBigtableSettings;

beforeAll(async () => {
  const { endpoint, writer } = inject('bigtable');
  place = { endpoint, writer, project: 'kairograph-test', instance: 'heroic-bigtable' };
  const cells: Cell[] = [
    // An older value first, overwritten at a later server time: only the latest version counts.
    point(keyA, B2 - HOUR, 99),
    ...TIMES.map((t) => point(keyA, t, valueA(t))),
    ...TIMES.map((t) => point(keyB, t, valueB(t))),
    // A version written after the latest but with an older time: still not the latest.
    point(keyB, B2 + HOUR, -5, 1000),
    // A distribution (t-digest bytes) beside a point: no point.
    { row: keyA(B2), family: 'distributionPoints', qualifier: offset(HOUR), value: '0102030405' },
    point((base) => `${two('mem')}00${long(base)}`, B1 + 10, 1.25),
    // Non-ASCII names: each string's UTF-8 and UTF-16 lengths differ; 'ville' sorts before '𝄞' (a surrogate pair).
    point(
      (base) => `${two('température')}02${two('ville')}${two('Zürich')}${two('𝄞')}${two('音')}${long(base)}`,
      B2,
      21.5,
    ),
  ];
  heroicWrite(place, cells);
  const file = sourcesFile(
    {
      sources: [
        {
          name: 'heroic-bt',
          layout: 'heroic',
          store: 'bigtable',
          project: place.project,
          instance: place.instance,
          table: 'metrics',
          catalogue: join(tempDir(), 'catalogue'),
          catalogueRefreshSeconds: 1,
        },
      ],
    },
    { BIGTABLE_EMULATOR_HOST: endpoint },
  );
  settings = loadSourcesFile(sourcesFileOptions(file.config))[0] as HeroicBigtableSettings;
  primary = await EmbeddedStore.open({ path: tempDir() });
  gw = await startGateway(primary, {}, { layouts: [openHeroicBigtableSource(settings, undefined)] });
  for (const started = Date.now(); ; ) {
    const { body } = await gw.graphql('{ sources { name catalogue { passes } } }');
    const sources = (body.data?.['sources'] ?? []) as { catalogue: { passes: number } | null }[];
    if (sources.some((s) => (s.catalogue?.passes ?? 0) > 0)) break;
    if (Date.now() - started > 30_000) throw new Error('no catalogue pass within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});

afterAll(async () => {
  await gw?.close();
  await primary?.close();
  removeTempDirs();
});

describe('a heroic source on Bigtable', () => {
  it('reads its settings from SOURCES_FILE, the endpoint from BIGTABLE_EMULATOR_HOST', () => {
    expect(settings).toEqual({
      name: 'heroic-bt',
      layout: 'heroic',
      bigtable: {
        project: 'kairograph-test',
        instance: 'heroic-bigtable',
        table: 'metrics',
        endpoint: place.endpoint,
        google: false,
      },
      catalogue: { kind: 'scan', path: expect.any(String), refreshIntervalMs: 1000 },
    });
  });

  it('finds its series from the row keys: metric names, tag values, resource entries as resource: tags', async () => {
    const { body } = await gw.graphql(
      `{ sources { name layout writable catalogue { kind partitions undecodableKeys } }
         names: metricNames(source: "heroic-bt")
         tags: tagNames(metric: "cpu", from: ${F}, to: ${T}, source: "heroic-bt")
         hosts: tagValues(metric: "cpu", tag: "host", from: ${F}, to: ${T}, source: "heroic-bt")
         instances: tagValues(metric: "cpu", tag: "resource:instance", from: ${F}, to: ${T}, source: "heroic-bt") }`,
    );
    expect(body).toEqual({
      data: {
        sources: [
          { name: 'kairosdb', layout: 'kairosdb', writable: true, catalogue: null },
          {
            name: 'heroic-bt',
            layout: 'heroic',
            writable: true,
            catalogue: { kind: 'scan', partitions: 6, undecodableKeys: 0 },
          },
        ],
        names: ['cpu', 'mem', 'température'],
        tags: ['host', 'resource:instance', 'role'],
        hosts: ['a', 'b'],
        instances: ['i-1'],
      },
    });
  });

  it('reads non-ASCII metric, tag names and values as Heroic wrote them', async () => {
    const { body } = await gw.graphql(
      `{ tagNames(metric: "température", from: ${F}, to: ${T}, source: "heroic-bt")
         points(metric: "température", from: ${F}, to: ${T}, where: [{ tag: "ville", eq: "Zürich" }], source: "heroic-bt") { tag(name: "𝄞") points { epochMs value } } }`,
    );
    expect(body).toEqual({
      data: { tagNames: ['ville', '𝄞'], points: [{ tag: '音', points: [{ epochMs: B2, value: 21.5 }] }] },
    });
  });

  it("answers raw points across the period boundary, latest versions only, the period's first ms included", async () => {
    const { body } = await gw.graphql(
      `{ points(metric: "cpu", from: ${F}, to: ${T}, source: "heroic-bt") { tag(name: "host") points { epochMs value } } }`,
    );
    expect(body).toEqual({
      data: {
        points: [
          { tag: 'a', points: TIMES.map((t) => ({ epochMs: t, value: valueA(t) })) },
          { tag: 'b', points: TIMES.map((t) => ({ epochMs: t, value: valueB(t) })) },
        ],
      },
    });
  });

  it('answers an aggregated series grouped by a tag, equal to averages computed here', async () => {
    const hourly = (value: (t: number) => number) => {
      const buckets = new Map<number, number[]>();
      for (const t of TIMES) {
        const start = F + Math.floor((t - F) / HOUR) * HOUR;
        buckets.set(start, [...(buckets.get(start) ?? []), value(t)]);
      }
      return [...buckets].map(([epochMs, values]) => ({
        epochMs,
        value: values.reduce((a, b) => a + b, 0) / values.length,
      }));
    };
    const { body } = await gw.graphql(
      `{ series(metric: "cpu", from: ${F}, to: ${T - 1}, aggregators: [{ avg: { sampling: { value: 1, unit: HOURS }, alignSampling: false, alignStartTime: true } }], groupBy: { tags: ["resource:instance"] }, source: "heroic-bt") { tag(name: "resource:instance") points { epochMs value } } }`,
    );
    expect(body).toEqual({
      data: {
        series: [
          { tag: null, points: hourly(valueA) },
          { tag: 'i-1', points: hourly(valueB) },
        ],
      },
    });
  });

  it('writes the bytes Heroic writes, read back raw by Google’s client, and deletes them', async () => {
    const t = B2 + 5 * HOUR;
    const add = await gw.graphql(
      `mutation { addPoints(source: "heroic-bt", series: [{ metric: "disk", tags: [{ name: "host", value: "c" }, { name: "resource:pod", value: "p-7" }], points: [{ time: ${t}, value: 2.5 }, { time: ${t + 1000}, value: -0.0 }] }]) { series points } }`,
    );
    expect(add.body).toEqual({ data: { addPoints: { series: 1, points: 2 } } });
    const payload = `01${one('pod')}${one('p-7')}`;
    const row = `${two('disk')}01${two('host')}${two('c')}${long(B2)}0100${hexByte(payload.length / 2)}${payload}`;
    const written = readAllCells(place).filter((c) => c.row === row);
    expect(written.map((c) => [c.family, c.qualifier, c.value])).toEqual([
      ['points', offset(5 * HOUR), double(2.5)],
      ['points', offset(5 * HOUR + 1000), '8000000000000000'],
    ]);
    // The server's time, as Heroic's -1 asks for.
    expect(written[0]!.micros).toBeGreaterThan((Date.now() - 60_000) * 1000);
    expect((await gw.graphql('{ metricNames(source: "heroic-bt") }')).body).toEqual({
      data: { metricNames: ['cpu', 'disk', 'mem', 'température'] },
    });
    const deleted = await gw.graphql(
      `mutation { deletePoints(metric: "disk", from: ${t}, to: ${t}, source: "heroic-bt") { partitionsDeleted } }`,
    );
    expect(deleted.body).toEqual({ data: { deletePoints: { partitionsDeleted: 0 } } });
    expect(
      readAllCells(place)
        .filter((c) => c.row === row)
        .map((c) => c.qualifier),
    ).toEqual([offset(5 * HOUR + 1000)]);
    const whole = await gw.graphql(
      `mutation { deletePoints(metric: "disk", from: ${B2}, to: ${B2 + 2 ** 32 - 1}, source: "heroic-bt") { partitionsDeleted } }`,
    );
    expect(whole.body).toEqual({ data: { deletePoints: { partitionsDeleted: 1 } } });
    expect(readAllCells(place).filter((c) => c.row === row)).toEqual([]);
  });

  it('refuses a TTL, which Heroic’s cells cannot hold, naming it', async () => {
    const { body } = await gw.graphql(
      `mutation { addPoints(source: "heroic-bt", series: [{ metric: "m", tags: [{ name: "h", value: "x" }], ttl: 60, points: [{ time: ${B2}, value: 1 }] }]) { points } }`,
    );
    expect(body.errors?.map((e) => [e.message, e.extensions?.['code']])).toEqual([
      [
        "ttl is not kept by Heroic's Bigtable rows: a cell has no TTL of its own (a column family's GC rule expires cells) (got 60)",
        'BAD_USER_INPUT',
      ],
    ]);
  });

  it('is copied into the KairosDB layout by the copy tool, point for point, checked by reading both back', async () => {
    const catalogue = { kind: 'scan', path: join(tempDir(), 'catalogue'), refreshIntervalMs: 1000 } as const;
    const from = openHeroicBigtableSource({ ...settings, catalogue }, undefined);
    const store = await EmbeddedStore.open({ path: tempDir() });
    try {
      const result = await copySeries({
        from,
        to: new KairosdbSource('to', store),
        metrics: ['cpu'],
        range: { startMs: F, endMs: T },
        statePath: join(tempDir(), 'copy.state'),
        cataloguePollMs: 50,
      });
      expect([result.points, result.series, result.mismatches]).toEqual([2 * TIMES.length, 2, []]);
    } finally {
      await from.close();
      await store.close();
    }
  });
});
