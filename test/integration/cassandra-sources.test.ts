/**
 * A Cassandra source of SOURCES_FILE on the real node, beside an embedded primary source: the file names only its
 * keyspace, so it connects with CASSANDRA_CONTACT_POINTS and CASSANDRA_LOCAL_DC, and GraphQL's `source` argument
 * writes into and reads from that keyspace (looked at with a store of its own) and nowhere else.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/gateway/config.js';
import { createGateway, listen } from '../../src/gateway/create-gateway.js';
import { openSources } from '../../src/sources/open-sources.js';
import { loadSourcesFile } from '../../src/sources/sources-file.js';
import { CassandraStore } from '../../src/store/cassandra/cassandra-store.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { emptyKeyspace, plainClient, storeOptions, testNode } from './cassandra-stores.js';
import { sourcesFileOptions, sourcesOptions } from '../../src/gateway/layer-options.js';

afterAll(removeTempDirs);

/** Fixed, so a reused node (KAIROGRAPH_CASSANDRA) does not collect keyspaces run after run; emptied first. */
const KEYSPACE = 'kg_sources_east';
const T = Date.UTC(2024, 0, 1);

it('reads and writes a Cassandra source named in SOURCES_FILE, with the CASSANDRA_* settings it leaves out', async () => {
  const client = await plainClient();
  await emptyKeyspace(client, KEYSPACE);
  await client.shutdown();
  const file = join(tempDir(), 'sources.json');
  writeFileSync(
    file,
    JSON.stringify({ sources: [{ name: 'east', layout: 'kairosdb', store: 'cassandra', keyspace: KEYSPACE }] }),
  );
  const node = testNode();
  const config = loadConfig({
    SEED_DEMO: 'false',
    SOURCES_FILE: file,
    CASSANDRA_CONTACT_POINTS: node.contactPoint,
    CASSANDRA_LOCAL_DC: node.localDataCenter,
    // One node: QUORUM of replication factor 1 is that node anyway, and ONE is what the other suites write at.
    CASSANDRA_WRITE_CONSISTENCY: 'ONE',
  });
  const primary = await EmbeddedStore.open({ path: tempDir() });
  const sources = await openSources(sourcesOptions(config), primary, loadSourcesFile(sourcesFileOptions(config)));
  const server = await listen(
    createGateway({ sources, config, log: pino({ level: 'silent' }) }).handle,
    '127.0.0.1',
    0,
    { requestTimeoutMs: config.queryTimeoutMs },
  );
  const graphql = async (query: string) => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    // The statistics in `extensions` hold timings and a request id: the rest is compared.
    const { extensions: _, ...body } = (await response.json()) as {
      data?: unknown;
      errors?: unknown;
      extensions?: unknown;
    };
    return body;
  };
  const east = await CassandraStore.open(storeOptions(KEYSPACE));
  try {
    expect(await graphql('{ sources { name layout primary } }')).toMatchObject({
      data: {
        sources: [
          { name: 'kairosdb', layout: 'kairosdb', primary: true },
          { name: 'east', layout: 'kairosdb', primary: false },
        ],
      },
    });
    const written = await graphql(
      `mutation { addPoints(source: "east", series: [{ metric: "cpu", tags: [{ name: "host", value: "e1" }], points: [{ time: ${T}, value: 1.5 }, { time: ${T + 1000}, value: 2.5 }] }]) { series points } }`,
    );
    expect(written).toEqual({ data: { addPoints: { series: 1, points: 2 } } });
    // In the source's keyspace, and not in the primary store.
    expect(await east.metricNames('')).toEqual(['cpu']);
    expect(await primary.metricNames('')).toEqual([]);
    const read = await graphql(`{
      metricNames(source: "east")
      points(metric: "cpu", from: ${T}, to: ${T + 1000}, source: "east") { host: tag(name: "host") points { epochMs value } }
      primary: points(metric: "cpu", from: ${T}, to: ${T + 1000}) { name }
    }`);
    expect(read).toEqual({
      data: {
        metricNames: ['cpu'],
        points: [
          {
            host: 'e1',
            points: [
              { epochMs: T, value: 1.5 },
              { epochMs: T + 1000, value: 2.5 },
            ],
          },
        ],
        primary: [],
      },
    });
  } finally {
    await east.close();
    await server.close();
    await sources.close();
  }
});
