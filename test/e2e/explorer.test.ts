/**
 * The explorer at `/` in a real headless browser: it loads the demo data and charts it (screenshot in test-artifacts/),
 * its live toggle adds a point written during the test through the REST API, and its GraphiQL link opens the same query.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { seedDemoData } from '../../src/demo/seed.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { launchChromium } from '../support/chromium.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url);

let store: EmbeddedStore;
let gw: TestGateway;
let browser: Browser;
let page: Page;
const failed: string[] = [];

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  // Ten minutes of points: all of them stay inside the live test's fifteen-minute window while this file runs, so its
  // count changes only by the point it writes (with an hour seeded, the window's oldest point could slide out first).
  await seedDemoData(store, { endMs: Date.now(), days: 10 / (24 * 60) });
  gw = await startGateway(store, { LIVE_POLL_MS: '60000' });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  // Turning live off aborts its stream: that is no failure.
  page.on(
    'requestfailed',
    (request) => void (request.failure()?.errorText !== 'net::ERR_ABORTED' && failed.push(request.url())),
  );
  page.on(
    'response',
    (response) => void (response.status() >= 400 && failed.push(`${response.status()} ${response.url()}`)),
  );
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await store?.close();
  removeTempDirs();
});

const chart = () => page.locator('#chart');

it('loads the demo and draws it as a chart', { timeout: 90_000 }, async () => {
  await page.goto(`${gw.url}/`, { waitUntil: 'load' });
  expect(await page.title()).toBe('Kairograph explorer');
  await expect
    .poll(async () => Number(await chart().getAttribute('data-points')), { timeout: 30_000 })
    .toBeGreaterThan(0);
  expect(await page.locator('#metric').inputValue()).toBe('system.cpu.usage');
  // Per host (the default group-by), a minute's average over the last hour.
  expect(await page.locator('#chart .legend, #chart .u-legend').innerText()).toContain('host=web-01');
  expect(await page.locator('#statistics').innerText()).toContain('points read');
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: new URL('explorer.png', ARTIFACTS).pathname, fullPage: true });
  expect(failed).toEqual([]);
});

it('adds a point written during the test when live', { timeout: 90_000 }, async () => {
  // Raw points of one host, so the written point is one more point on the chart.
  await page.selectOption('#aggregator', '');
  await page.selectOption('#range', 'now-15m');
  await page.selectOption('#tags select[data-tag="host"]', 'web-01');
  await expect
    .poll(async () => page.locator('#status').innerText(), { timeout: 30_000 })
    .toMatch(/^1 series, \d+ points$/);
  const before = Number(await chart().getAttribute('data-points'));
  await page.check('#live');
  await expect.poll(async () => page.locator('#status').innerText(), { timeout: 30_000 }).toContain('live: snapshot');
  const t = Date.now();
  const response = await fetch(`${gw.url}/api/v1/datapoints`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([
      { name: 'system.cpu.usage', tags: { dc: 'eu-west', host: 'web-01' }, datapoints: [[t, 42]] },
    ]),
  });
  expect(response.status).toBe(204);
  await expect.poll(async () => Number(await chart().getAttribute('data-last')), { timeout: 10_000 }).toBe(t);
  expect(Number(await chart().getAttribute('data-points'))).toBe(before + 1);
  await page.screenshot({ path: new URL('explorer-live.png', ARTIFACTS).pathname, fullPage: true });
  await page.uncheck('#live');
});

it('opens the same query in GraphiQL', { timeout: 90_000 }, async () => {
  const href = await page.locator('#graphiql').getAttribute('href');
  const query = new URL(href!, gw.url).searchParams.get('query')!;
  expect(query).toContain('series(metric: "system.cpu.usage", from: "now-15m", where: [{ tag: "host", eq: "web-01" }]');
  const [graphiql] = await Promise.all([page.context().waitForEvent('page'), page.click('#graphiql')]);
  await graphiql.waitForLoadState('load');
  const editor = graphiql.locator('.graphiql-query-editor');
  await expect
    .poll(async () => (await editor.innerText()).replace(/\s+/g, ' '), { timeout: 30_000 })
    .toContain('series(metric: "system.cpu.usage", from: "now-15m"');
  await graphiql.locator('button.graphiql-execute-button').click();
  await expect
    .poll(async () => graphiql.locator('.graphiql-response').innerText(), { timeout: 30_000 })
    .toContain('"epochMs"');
  expect(failed).toEqual([]);
});
