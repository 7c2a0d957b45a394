/**
 * GraphiQL in a real headless browser: the page loads from the gateway with no CDN, runs its default query against
 * the demo data and shows it. The screenshot is kept in test-artifacts/ for people to look at.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { seedDemoData } from '../../src/demo/seed.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { launchChromium } from '../support/chromium.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url);

let store: EmbeddedStore;
let gw: TestGateway;
let browser: Browser;

beforeAll(async () => {
  store = await EmbeddedStore.open({ path: tempDir() });
  await seedDemoData(store, { endMs: Date.now(), days: 0.05 });
  gw = await startGateway(store);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await store?.close();
  removeTempDirs();
});

it('loads GraphiQL, runs the default query and shows the demo data', { timeout: 90_000 }, async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const failed: string[] = [];
  page.on('requestfailed', (request) => failed.push(request.url()));
  await page.goto(`${gw.url}/graphql`, { waitUntil: 'load' });
  expect(await page.title()).toBe('Kairograph');
  const run = page.locator('button.graphiql-execute-button');
  await run.waitFor({ state: 'visible', timeout: 30_000 });
  await run.click();
  const response = page.locator('.graphiql-response');
  await expect.poll(async () => response.innerText(), { timeout: 30_000 }).toContain('system.cpu.usage');
  const text = await response.innerText();
  for (const expected of ['"metricNames"', '"hosts"', 'web-01', '"points"', '"time"']) expect(text).toContain(expected);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: new URL('graphiql.png', ARTIFACTS).pathname, fullPage: true });
  expect(failed).toEqual([]);
});

it("shows Time's description in GraphiQL's Docs pane", { timeout: 90_000 }, async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${gw.url}/graphql`, { waitUntil: 'load' });
  await page.locator('button[aria-label="Show Documentation Explorer"]').click({ timeout: 30_000 });
  const search = page.locator('.graphiql-doc-explorer-search-input input');
  await search.fill('Time');
  await page
    .locator('.graphiql-doc-explorer-search [role="option"]', { hasText: /^Time$/ })
    .first()
    .click();
  const docs = page.locator('.graphiql-doc-explorer');
  await expect.poll(async () => docs.innerText(), { timeout: 30_000 }).toContain('date-math');
  const text = await docs.innerText();
  for (const expected of ['A point in time', 'now-1d/d', 'epoch seconds']) expect(text).toContain(expected);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: new URL('graphiql-docs-time.png', ARTIFACTS).pathname, fullPage: true });
});
