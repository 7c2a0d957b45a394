/**
 * The walk-through of docs/user-tables.md, as written there: `npm run demo:table` against the test node, the gateway
 * process started on the sources file it writes (the page's own mapping), then the page's query.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { codeBlocks, docSection, ROOT, startGatewayProcess } from '../support/walk-through.js';
import { plainClient, testNode } from './cassandra-stores.js';

afterAll(removeTempDirs);

it("runs docs/user-tables.md's walk-through of a user's own table", async () => {
  const [mapping] = codeBlocks(docSection('docs/user-tables.md', 'Map a table onto series'), 'json');
  const [query] = codeBlocks(docSection('docs/user-tables.md', 'Try it in a minute'), 'graphql');
  const client = await plainClient();
  await client.execute('DROP KEYSPACE IF EXISTS iot');
  const dir = tempDir();
  const node = testNode();
  try {
    const demo = spawnSync(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), join(ROOT, 'tools/demo-table.ts'), node.contactPoint],
      {
        cwd: dir,
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, CASSANDRA_LOCAL_DC: node.localDataCenter },
      },
    );
    expect([demo.status, demo.stderr]).toEqual([0, '']);
    expect(demo.stdout).toMatch(/^iot\.sensor_readings holds 30243 readings of 3 sensors over the last 7 days\.\n/);
    // The file it writes is the page's mapping.
    const file = join(dir, 'sources.sensors.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(JSON.parse(mapping!));
    const gateway = await startGatewayProcess({
      SOURCES_FILE: file,
      CASSANDRA_CONTACT_POINTS: node.contactPoint,
      CASSANDRA_LOCAL_DC: node.localDataCenter,
      DATA_DIR: dir,
    });
    try {
      // The catalogue finds the sensors in its first pass, moments after start.
      let answer: { data?: Record<string, unknown>; errors?: unknown[] } = {};
      for (let i = 0; i < 100 && (answer.data?.['tagValues'] as unknown[] | undefined)?.length !== 3; i++) {
        answer = await gateway.ask(query!);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(answer.errors).toBeUndefined();
      expect(answer.data?.['tagValues']).toEqual(['s-1', 's-2', 's-3']);
      const series = answer.data?.['series'] as { tag: string; points: { value: number }[] }[];
      expect(series.map((s) => s.tag)).toEqual(['s-1', 's-2', 's-3']);
      // A daily curve of ±3 degrees around 20, 22 and 24: every day's maximum is near the top of its sensor's curve.
      series.forEach((s, i) => {
        expect(s.points.length).toBeGreaterThanOrEqual(7);
        for (const p of s.points) expect(p.value).toBeLessThanOrEqual(23 + 2 * i);
        expect(Math.max(...s.points.map((p) => p.value))).toBeGreaterThan(22.9 + 2 * i);
      });
    } finally {
      await gateway.stop();
    }
  } finally {
    await client.execute('DROP KEYSPACE IF EXISTS iot');
    await client.shutdown();
  }
});
