/**
 * The explorer at `/` in a real headless browser: it loads the demo data and charts it (screenshot in test-artifacts/),
 * its live toggle adds a point written during the test through the REST API, its GraphiQL link opens the same query,
 * and its PromQL box charts an expression through GraphQL's `promql` field, live too, and shows Prometheus's refusal.
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
  // Constant series for the PromQL box, a point every 10s up to 30s ago: every step of the last 15 minutes finds one
  // within the 5-minute lookback, and a point written during the test is the latest.
  const seeded = Math.floor(Date.now() / 10_000) * 10_000 - 30_000;
  await store.write({
    series: ['a', 'b'].map((host, h) => ({
      metric: 'explorer.const',
      tags: { host },
      type: 'double' as const,
      ttlSeconds: 0,
      timestamps: Array.from({ length: 120 }, (_, i) => seeded - i * 10_000),
      values: Array.from({ length: 120 }, () => (h === 0 ? 3 : 5)),
    })),
  });
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

it('charts a PromQL expression from its box, follows it live, and shows what Prometheus refuses', {
  timeout: 90_000,
}, async () => {
  await page.fill('#expression', '{"explorer.const"}');
  await page.click('#chartPromql');
  // The range above (15 minutes) at a 5s step: 181 steps, each with a value of both series.
  await expect.poll(async () => page.locator('#status').innerText(), { timeout: 30_000 }).toBe('2 series, 362 points');
  expect([await chart().getAttribute('data-min'), await chart().getAttribute('data-max')]).toEqual(['3', '5']);
  const legend = await page.locator('#chart .u-legend').innerText();
  expect(legend).toContain('explorer.const{host="a"}');
  expect(legend).toContain('explorer.const{host="b"}');
  const href = await page.locator('#graphiql').getAttribute('href');
  expect(new URL(href!, gw.url).searchParams.get('query')).toContain(
    'promql(expression: "{\\"explorer.const\\"}", from: "now-15m", step: "5s")',
  );
  await page.screenshot({ path: new URL('explorer-promql.png', ARTIFACTS).pathname, fullPage: true });

  await page.check('#live');
  await expect.poll(async () => page.locator('#status').innerText(), { timeout: 30_000 }).toContain('live: snapshot');
  const response = await fetch(`${gw.url}/api/v1/datapoints`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([{ name: 'explorer.const', tags: { host: 'a' }, datapoints: [[Date.now() - 5_000, 9.5]] }]),
  });
  expect(response.status).toBe(204);
  // A step within the last 5s reads it: livePromql ran again as the write landed on the metric its selector names.
  await expect.poll(async () => chart().getAttribute('data-max'), { timeout: 10_000 }).toBe('9.5');
  await page.uncheck('#live');

  await page.fill('#expression', 'rate(');
  await page.click('#chartPromql');
  await expect
    .poll(async () => page.locator('#status').innerText(), { timeout: 30_000 })
    .toBe('expression is refused: 1:6: parse error: unclosed left parenthesis (got "rate(")');
  expect(await page.locator('#status').getAttribute('class')).toBe('error');
  // The refusal is GraphQL's 400; nothing else failed.
  expect(failed).toEqual([`400 ${gw.url}/graphql`]);
});
