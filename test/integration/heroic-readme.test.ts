/**
 * The README's "Heroic's table" walk-through, as written there: its sources.json, the gateway process started with it
 * against the test node, then its mutation and its query, read out of the README itself so the two cannot drift apart.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { plainClient, testNode } from './cassandra-stores.js';

afterAll(removeTempDirs);

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The README's section on Heroic: its sources.json line and its GraphQL blocks, in order. */
function walkThrough(): { sources: unknown; graphql: string[] } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf("### Heroic's table"), readme.indexOf('\n## ', readme.indexOf("### Heroic's table")));
  const echo = /echo '(\{.*\})' > sources\.json/.exec(section);
  const graphql = [...section.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(echo).not.toBeNull();
  expect(graphql).toHaveLength(2);
  return { sources: JSON.parse(echo![1]!), graphql };
}

it("runs the README's Heroic walk-through on a fresh keyspace", async () => {
  const { sources, graphql } = walkThrough();
  const client = await plainClient();
  // The README's source uses Heroic's default keyspace; a fresh one each run.
  await client.execute('DROP KEYSPACE IF EXISTS heroic');
  const dir = tempDir();
  writeFileSync(join(dir, 'sources.json'), JSON.stringify(sources));
  const node = testNode();
  const env = { ...process.env, SOURCES_FILE: join(dir, 'sources.json'), CASSANDRA_CONTACT_POINTS: node.contactPoint, CASSANDRA_LOCAL_DC: node.localDataCenter, DATA_DIR: dir, SEED_DEMO: 'false', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info' };
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/main.ts')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the gateway exited (${code}) before it listened`)));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (typeof entry['url'] === 'string') resolve(entry['url']);
      });
    });
    const ask = async (query: string) => {
      const response = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
      return (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
    };
    // The table is created in the background as the source connects: the mutation is retried until it is there.
    let added: { data?: Record<string, unknown>; errors?: unknown[] } = {};
    for (let i = 0; i < 100 && added.data?.['addPoints'] === undefined; i++) {
      added = await ask(graphql[0]!);
      if (added.data?.['addPoints'] === undefined) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect([added.data, added.errors]).toEqual([{ addPoints: { points: 2 } }, undefined]);
    const answer = await ask(graphql[1]!);
    expect(answer.errors).toBeUndefined();
    expect((answer.data?.['sources'] as unknown[]).at(-1)).toEqual({ name: 'heroic', catalogue: { partitions: 1, passes: expect.any(Number) } });
    const series = answer.data?.['series'] as { tag: string; points: { time: string; value: number }[] }[];
    expect(series.map((s) => [s.tag, s.points.map((p) => p.value)])).toEqual([['p-1', [0.5, 0.75]]]);
    // Heroic's bytes landed in Heroic's table.
    const rows = await client.execute('SELECT data_value FROM heroic.metrics');
    expect(rows.rows.map((r) => r['data_value']).sort()).toEqual([0.5, 0.75]);
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await new Promise((done) => child.once('exit', done));
    await client.execute('DROP KEYSPACE IF EXISTS heroic');
    await client.shutdown();
  }
});
