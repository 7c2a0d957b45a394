/**
 * A started gateway with both TCP ingest ports on, over a fresh embedded store (or a given one), and reading its points
 * back through KairosDB's REST API and /metrics: what the TCP ingest suites share.
 */
import { afterAll, afterEach, expect } from 'vitest';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import type { Store } from '../../src/store/store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { eventually, freePort } from '../support/tcp-sender.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

/** Closes the gateways a file started after each test, and its scratch dirs after the file: call once per file. */
export function closeGatewaysAfterEach(): void {
  afterAll(removeTempDirs);
  afterEach(async () => {
    for (const gateway of open.splice(0)) await gateway.close();
  });
}

/** Takes `gateway` out of those closed after the test: the test closes it itself. */
export function forget(gateway: TestGateway): void {
  open.splice(open.indexOf(gateway), 1);
}

const open: TestGateway[] = [];

interface Ports {
  telnet: number;
  graphite: number;
}

export async function start(env: Record<string, string> = {}, store?: Store): Promise<TestGateway & Ports> {
  const [telnet, graphite] = [await freePort(), await freePort()];
  const gateway = await startGateway(store ?? (await EmbeddedStore.open({ path: tempDir('kairograph-tcp-') })), {
    TELNET_PORT: String(telnet),
    GRAPHITE_PORT: String(graphite),
    TCP_INGEST_BATCH_MS: '20',
    ...env,
  });
  open.push(gateway);
  return Object.assign(gateway, { telnet, graphite });
}

interface Result {
  name: string;
  tags: Record<string, string[]>;
  values: [number, number | string][];
}

/** The REST answer's text for every series of `metric` in [0, 2e12], one result per tag combination (group_by tags). */
export async function queryText(gateway: TestGateway, metric: string, tagNames: string[] = []): Promise<string> {
  const response = await fetch(`${gateway.url}/api/v1/datapoints/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      start_absolute: 0,
      end_absolute: 2_000_000_000_000,
      metrics: [{ name: metric, ...(tagNames.length ? { group_by: [{ name: 'tag', tags: tagNames }] } : {}) }],
    }),
  });
  return response.text();
}

export async function read(gateway: TestGateway, metric: string, tagNames: string[] = []): Promise<Result[]> {
  const body = JSON.parse(await queryText(gateway, metric, tagNames)) as {
    queries: { results: (Result & { group_by?: unknown })[] }[];
  };
  return body.queries[0]!.results.map(({ name, tags, values }) => ({ name, tags, values }));
}

/** Reads until `metric` holds `count` points in all. */
export async function readCount(gateway: TestGateway, metric: string, count: number, tagNames: string[] = []) {
  return eventually(async () => {
    const results = await read(gateway, metric, tagNames);
    const total = results.reduce((n, result) => n + result.values.length, 0);
    return total === count ? results : undefined;
  });
}

async function metricsText(gateway: TestGateway): Promise<string[]> {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  return text.split('\n').filter((line) => line.startsWith('kairograph_ingest_'));
}

/**
 * Asserts that /metrics shows `expected` lines, polling a moment: a point is counted when its write returns, which the
 * embedded store may report a little after a reader can see the point.
 */
export async function expectMetrics(gateway: TestGateway, expected: string[]): Promise<void> {
  const lines = await eventually(async () => {
    const shown = await metricsText(gateway);
    return expected.every((line) => shown.includes(line)) ? shown : undefined;
  }).catch(() => metricsText(gateway));
  expect(lines).toEqual(expect.arrayContaining(expected));
}
