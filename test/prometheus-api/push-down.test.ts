/**
 * PromQL's matchers pushed into the source's index reads, on the one read path: an exact tag value (`=`, or `=~` of
 * plain words) of a tag-indexed metric reads KairosDB's tag index instead of every row key of the period, and the
 * request's log line counts each selector's metric as one query, with its index reads and points.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KairosdbSource } from '../../src/sources/kairosdb/kairosdb-source.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { parseTagIndexConfig } from '../../src/store/tag-index.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { promClient } from './prometheus-suite.js';

let store: EmbeddedStore;
let gateway: TestGateway;
const lines: string[] = [];

beforeAll(async () => {
  store = await EmbeddedStore.open({
    path: tempDir(),
    tagIndexedMetrics: parseTagIndexConfig({ 'idx.cpu': ['host'] }),
  });
  await new KairosdbSource('writer', store).write({
    series: Array.from({ length: 20 }, (_, i) => ({
      metric: 'idx.cpu',
      tags: { host: `h${i}` },
      type: 'double' as const,
      ttlSeconds: 0,
      timestamps: [60_000],
      values: [i],
    })),
  });
  gateway = await startGateway(store, {}, { logLines: lines });
});

afterAll(async () => {
  await gateway?.close();
  await store?.close();
  removeTempDirs();
});

interface LogLine {
  readonly msg: string;
  readonly statistics?: {
    readonly storeCalls: Readonly<Record<string, number>>;
    readonly queries: readonly { path: string; metric: string; seriesMatched: number; pointsRead: number }[];
  };
}

async function statisticsOf(query: string) {
  lines.length = 0;
  const got = await promClient(gateway.url, 'kairosdb').get(`/query?query=${encodeURIComponent(query)}&time=120`);
  expect(got.status).toBe(200);
  // The log line is written when the response closes, which may be just after the client has the answer.
  let line: LogLine | undefined;
  for (let waited = 0; line === undefined && waited < 2000; waited += 10) {
    line = lines.map((text) => JSON.parse(text) as LogLine).find((l) => l.msg === 'prometheus request');
    if (line === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const { storeCalls, queries } = line!.statistics!;
  return {
    rowKeys: storeCalls['rowKeys'],
    tagIndexedRowKeys: storeCalls['tagIndexedRowKeys'],
    queries: queries.map((q) => [q.path, q.metric, q.seriesMatched, q.pointsRead]),
  };
}

it('reads the tag index for exact values, and every row key of the period otherwise', async () => {
  expect(await statisticsOf('{"idx.cpu", host=~"h3|h4"}')).toEqual({
    rowKeys: 0,
    tagIndexedRowKeys: 2,
    queries: [['selector[0]', 'idx.cpu', 2, 2]],
  });
  expect(await statisticsOf('{"idx.cpu", host="h3"}')).toEqual({
    rowKeys: 0,
    tagIndexedRowKeys: 1,
    queries: [['selector[0]', 'idx.cpu', 1, 1]],
  });
  expect(await statisticsOf('{"idx.cpu", host=~"h1.*"}')).toEqual({
    rowKeys: 1,
    tagIndexedRowKeys: 0,
    queries: [['selector[0]', 'idx.cpu', 11, 11]],
  });
});
