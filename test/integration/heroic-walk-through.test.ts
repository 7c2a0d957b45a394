/**
 * The walk-through of docs/heroic.md ("Try it on a fresh machine"), as written there: its sources.json, the gateway
 * process started with it against the test node, then its mutation and its query, read out of the page itself.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { codeBlocks, docSection, startGatewayProcess } from '../support/walk-through.js';
import { plainClient, testNode } from './cassandra-stores.js';

afterAll(removeTempDirs);

it("runs docs/heroic.md's walk-through on a fresh keyspace", async () => {
  const section = docSection('docs/heroic.md', 'Try it on a fresh machine');
  const echo = /echo '(\{.*\})' > sources\.json/.exec(section);
  const graphql = codeBlocks(section, 'graphql');
  expect([echo !== null, graphql.length]).toEqual([true, 2]);
  const client = await plainClient();
  // The page's source uses Heroic's default keyspace; a fresh one each run.
  await client.execute('DROP KEYSPACE IF EXISTS heroic');
  const dir = tempDir();
  writeFileSync(join(dir, 'sources.json'), echo![1]!);
  const node = testNode();
  const gateway = await startGatewayProcess({
    SOURCES_FILE: join(dir, 'sources.json'),
    CASSANDRA_CONTACT_POINTS: node.contactPoint,
    CASSANDRA_LOCAL_DC: node.localDataCenter,
    DATA_DIR: dir,
  });
  try {
    // The table is created in the background as the source connects: the mutation is retried until it is there.
    let added: { data?: Record<string, unknown>; errors?: unknown[] } = {};
    for (let i = 0; i < 100 && added.data?.['addPoints'] === undefined; i++) {
      added = await gateway.ask(graphql[0]!);
      if (added.data?.['addPoints'] === undefined) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect([added.data, added.errors]).toEqual([{ addPoints: { points: 2 } }, undefined]);
    const answer = await gateway.ask(graphql[1]!);
    expect(answer.errors).toBeUndefined();
    expect((answer.data!['sources'] as unknown[]).at(-1)).toEqual({
      name: 'heroic',
      catalogue: { partitions: 1, passes: expect.any(Number) },
    });
    const series = answer.data?.['series'] as { tag: string; points: { time: string; value: number }[] }[];
    expect(series.map((s) => [s.tag, s.points.map((p) => p.value)])).toEqual([['p-1', [0.5, 0.75]]]);
    // Heroic's bytes landed in Heroic's table.
    const rows = await client.execute('SELECT data_value FROM heroic.metrics');
    expect(rows.rows.map((r) => r['data_value']).sort()).toEqual([0.5, 0.75]);
  } finally {
    await gateway.stop();
    await client.execute('DROP KEYSPACE IF EXISTS heroic');
    await client.shutdown();
  }
});
