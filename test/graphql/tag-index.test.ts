/**
 * The tag index over HTTP: a gateway whose store indexes `host` answers exactly what one without the index answers,
 * reads each pinned host's partition once per request however many aliases ask, and counts the reads in
 * `extensions.statistics.storeCalls.tagIndexedRowKeys`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import type { SeriesWrite } from '../../src/model/write-batch.js';
import { parseTagIndexConfig } from '../../src/store/tag-index.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const T = 1_700_000_000_000;
const series: SeriesWrite[] = ['a', 'b', 'c'].flatMap((host) =>
  ['x', 'y'].map((dc, i) => ({
    metric: 'cpu',
    tags: { host, dc },
    type: 'double' as const,
    ttlSeconds: 0,
    timestamps: [T + i, T + 60_000],
    values: [i, 7],
  })),
);

const QUERY = `query Dashboard($from: Time!, $to: Time!) {
  a: points(metric: "cpu", from: $from, to: $to, where: [{ tag: "host", eq: "a" }]) { host: tag(name: "host") dc: tag(name: "dc") points { epochMs value } }
  again: series(metric: "cpu", from: $from, to: $to, where: [{ tag: "host", in: ["a", "b"] }, { tag: "dc", notEq: "y" }], groupBy: { tags: ["host"] }, aggregators: [{ sum: { sampling: { value: 1, unit: MINUTES } } }]) { host: tag(name: "host") points { epochMs value } }
  keys: seriesKeys(metric: "cpu", from: $from, to: $to, where: [{ tag: "host", eq: "b" }, { tag: "dc", regex: "x|z" }]) { tags { name value } }
  dc: points(metric: "cpu", from: $from, to: $to, where: [{ tag: "dc", eq: "y" }]) { host: tag(name: "host") points { epochMs value } }
}`;

let indexed: TestGateway;
let plain: TestGateway;
const stores: EmbeddedStore[] = [];

beforeAll(async () => {
  const withIndex = await EmbeddedStore.open({
    path: tempDir(),
    tagIndexedMetrics: parseTagIndexConfig({ cpu: ['host'] }),
  });
  const without = await EmbeddedStore.open({ path: tempDir() });
  stores.push(withIndex, without);
  for (const store of stores) await store.write({ series });
  indexed = await startGateway(withIndex);
  plain = await startGateway(without);
});

afterAll(async () => {
  await indexed?.close();
  await plain?.close();
  await Promise.all(stores.map((s) => s.close()));
  removeTempDirs();
});

describe('the tag index over GraphQL', () => {
  it('answers as row_keys does, reading each pinned host once per request, and counts the reads', async () => {
    const variables = { from: T - 1000, to: T + 120_000 };
    const [withIndex, without] = await Promise.all([
      indexed.graphql(QUERY, variables),
      plain.graphql(QUERY, variables),
    ]);
    expect(withIndex.status).toBe(200);
    expect(withIndex.body).toEqual(without.body);
    expect(withIndex.body.data!['keys']).toEqual([
      {
        tags: [
          { name: 'dc', value: 'x' },
          { name: 'host', value: 'b' },
        ],
      },
    ]);
    // host=a and host=b (the first alias's host=a is read once for both); dc is not indexed, so row_keys for `dc`.
    expect((withIndex.extensions!['statistics'] as { storeCalls: unknown }).storeCalls).toEqual({
      rowTimes: 1,
      rowKeys: 1,
      legacyRowKeys: 1,
      tagIndexedRowKeys: 2,
      scans: expect.any(Number),
      total: expect.any(Number),
    });
    expect((without.extensions!['statistics'] as { storeCalls: unknown }).storeCalls).toMatchObject({
      rowKeys: 1,
      tagIndexedRowKeys: 0,
    });
  });
});
