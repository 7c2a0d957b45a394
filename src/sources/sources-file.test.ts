/**
 * SOURCES_FILE: what a good file configures, the exact message for each field a bad one gets wrong, the real process
 * refusing to start on one and serving the sources of a good one, and the sources opened from it reading and writing
 * their own stores. A heroic or table source's own fields are tested beside their layout (heroic/heroic-settings.test.ts,
 * table/table-settings.test.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { sourcesFile } from '../../test/support/sources-file.js';
import { removeTempDirs, tempDir } from '../../test/support/temp-dir.js';
import { loadConfig } from '../gateway/config.js';
import { IndexLoaders } from './index-loaders.js';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';
import { openSources } from './open-sources.js';
import { loadSourcesFile } from './sources-file.js';
import { sourcesFileOptions, sourcesOptions } from '../gateway/layer-options.js';

afterAll(removeTempDirs);

const embedded = { name: 'a', layout: 'kairosdb', store: 'embedded', path: '/var/lib/a' };
const cassandra = { name: 'a', layout: 'kairosdb', store: 'cassandra' };

describe('loadSourcesFile', () => {
  it('reads no sources without a file', () => {
    expect(loadSourcesFile(sourcesFileOptions(loadConfig({})))).toEqual([]);
  });

  it('reads embedded and Cassandra sources, the latter with the CASSANDRA_* settings for what they leave out', () => {
    const { config } = sourcesFile(
      {
        sources: [
          { name: 'archive', layout: 'kairosdb', store: 'embedded', path: ' /var/lib/archive ' },
          { name: 'east', layout: 'kairosdb', store: 'cassandra' },
          {
            name: 'west.v2',
            layout: 'kairosdb',
            store: 'cassandra',
            contactPoints: ['w-1:9142', 'w-2'],
            localDataCenter: 'west',
            keyspace: 'west_metrics',
          },
        ],
      },
      { CASSANDRA_CONTACT_POINTS: 'e-1,e-2:9043', CASSANDRA_LOCAL_DC: 'east', CASSANDRA_KEYSPACE: 'east_metrics' },
    );
    expect(loadSourcesFile(sourcesFileOptions(config))).toEqual([
      { name: 'archive', layout: 'kairosdb', store: { kind: 'embedded', path: '/var/lib/archive' } },
      {
        name: 'east',
        layout: 'kairosdb',
        store: {
          kind: 'cassandra',
          contactPoints: ['e-1', 'e-2:9043'],
          localDataCenter: 'east',
          keyspace: 'east_metrics',
        },
      },
      {
        name: 'west.v2',
        layout: 'kairosdb',
        store: {
          kind: 'cassandra',
          contactPoints: ['w-1:9142', 'w-2'],
          localDataCenter: 'west',
          keyspace: 'west_metrics',
        },
      },
    ]);
  });

  it('names a file it cannot read, and what is wrong with its JSON', () => {
    const missing = join(tempDir(), 'nothing.json');
    expect(() => loadSourcesFile(sourcesFileOptions(loadConfig({ SOURCES_FILE: missing })))).toThrow(
      `SOURCES_FILE cannot be read: ENOENT: no such file or directory, open '${missing}'`,
    );
    const bad = sourcesFile('{"sources": [}');
    let parseError = '';
    try {
      JSON.parse('{"sources": [}');
    } catch (error) {
      parseError = (error as Error).message;
    }
    expect(() => loadSourcesFile(sourcesFileOptions(bad.config))).toThrow(
      `SOURCES_FILE ${bad.path} is not valid JSON: ${parseError}`,
    );
  });

  it.each([
    ['a list', [], (path: string) => `SOURCES_FILE ${path} must be a JSON object {"sources": [...]} (got [])`],
    [
      'an unknown top-level field',
      { source: [] },
      (path: string) => `SOURCES_FILE ${path}: unknown field "source" (fields: sources)`,
    ],
    ['no sources', {}, (path: string) => `SOURCES_FILE ${path}: sources must be a list of sources (got nothing)`],
    [
      'sources that are not a list',
      { sources: { a: 1 } },
      (path: string) => `SOURCES_FILE ${path}: sources must be a list of sources (got {"a":1})`,
    ],
  ])('refuses %s', (_, content, message) => {
    const { path, config } = sourcesFile(content);
    expect(() => loadSourcesFile(sourcesFileOptions(config))).toThrow(message(path));
  });

  it.each([
    ['a source that is not an object', [3], 'SOURCES_FILE sources[0] must be an object (got 3)'],
    [
      'a source without a name',
      [{ layout: 'kairosdb' }],
      'SOURCES_FILE sources[0]: name must be 1 to 64 letters, digits, ".", "_" or "-" (got nothing)',
    ],
    [
      'a name that cannot be a source name',
      [embedded, { ...embedded, name: 'a/b' }],
      'SOURCES_FILE sources[1]: name must be 1 to 64 letters, digits, ".", "_" or "-" (got "a/b")',
    ],
    [
      "the primary source's name",
      [{ ...embedded, name: 'kairosdb' }],
      'SOURCES_FILE source "kairosdb": name is taken by the primary source (PRIMARY_SOURCE_NAME)',
    ],
    [
      'a name given twice',
      [embedded, { ...embedded, path: '/var/lib/b' }],
      'SOURCES_FILE source "a": name is taken by sources[0]',
    ],
    [
      'an unknown layout',
      [{ ...embedded, layout: 'influx' }],
      'SOURCES_FILE source "a": layout must be one of kairosdb, heroic, table (got "influx")',
    ],
    [
      'no store',
      [{ name: 'a', layout: 'kairosdb' }],
      'SOURCES_FILE source "a": store must be one of embedded, cassandra (got nothing)',
    ],
    [
      'an unknown store',
      [{ ...embedded, store: 'mysql' }],
      'SOURCES_FILE source "a": store must be one of embedded, cassandra (got "mysql")',
    ],
    [
      'a field of another store',
      [{ ...embedded, keyspace: 'k' }],
      'SOURCES_FILE source "a": "keyspace" is not a field of a kairosdb source on the embedded store (its fields: name, layout, store, path)',
    ],
    [
      'an embedded store without a path',
      [{ name: 'a', layout: 'kairosdb', store: 'embedded' }],
      'SOURCES_FILE source "a": path must be a non-empty string (got nothing)',
    ],
    [
      'an empty path',
      [{ ...embedded, path: ' ' }],
      'SOURCES_FILE source "a": path must be a non-empty string (got " ")',
    ],
    [
      'a misspelt field',
      [{ ...cassandra, contactPoint: 'c' }],
      'SOURCES_FILE source "a": "contactPoint" is not a field of a kairosdb source on the cassandra store (its fields: name, layout, store, contactPoints, localDataCenter, keyspace)',
    ],
    [
      'no contact points',
      [{ ...cassandra, contactPoints: [] }],
      'SOURCES_FILE source "a": contactPoints must be a non-empty list of "host" or "host:port" (got [])',
    ],
    [
      'contact points as one string',
      [{ ...cassandra, contactPoints: 'c1,c2' }],
      'SOURCES_FILE source "a": contactPoints must be a non-empty list of "host" or "host:port" (got "c1,c2")',
    ],
    [
      'a contact point that is not a string',
      [{ ...cassandra, contactPoints: [9042] }],
      'SOURCES_FILE source "a": contactPoints[0] must be "host" or "host:port" (got 9042)',
    ],
    [
      'a bad contact point',
      [{ ...cassandra, contactPoints: ['c1', 'b c'] }],
      'SOURCES_FILE source "a": contactPoints[1]: a contact point must be host or host:port (got "b c")',
    ],
    [
      'an empty data centre',
      [{ ...cassandra, localDataCenter: '' }],
      'SOURCES_FILE source "a": localDataCenter must be a non-empty string (got "")',
    ],
    [
      'a null keyspace',
      [{ ...cassandra, keyspace: null }],
      'SOURCES_FILE source "a": keyspace must be a non-empty string (got null)',
    ],
    [
      'a bad keyspace',
      [{ ...cassandra, keyspace: 'Metrics' }],
      'SOURCES_FILE source "a": keyspace: the keyspace must be 1 to 48 lower-case letters, digits or _, starting with a letter (got "Metrics")',
    ],
  ])('refuses %s, naming the source and the field', (_, sources, message) => {
    expect(() => loadSourcesFile(sourcesFileOptions(sourcesFile({ sources }).config))).toThrow(message);
  });

  it('checks names against the primary source as PRIMARY_SOURCE_NAME names it', () => {
    expect(
      loadSourcesFile(
        sourcesFileOptions(
          sourcesFile({ sources: [{ ...embedded, name: 'kairosdb' }] }, { PRIMARY_SOURCE_NAME: 'main' }).config,
        ),
      ).map((s) => s.name),
    ).toEqual(['kairosdb']);
    expect(() =>
      loadSourcesFile(
        sourcesFileOptions(
          sourcesFile({ sources: [{ ...embedded, name: 'main' }] }, { PRIMARY_SOURCE_NAME: 'main' }).config,
        ),
      ),
    ).toThrow('SOURCES_FILE source "main": name is taken by the primary source (PRIMARY_SOURCE_NAME)');
  });
});

const main = fileURLToPath(new URL('../main.ts', import.meta.url));

it('stops start-up with a message that names the source and the field', () => {
  const { path } = sourcesFile({ sources: [{ ...embedded, layout: 'influx' }] });
  const result = spawnSync(process.execPath, ['--import', 'tsx', main], {
    env: { ...process.env, SOURCES_FILE: path, PORT: '0' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(result.status).toBe(2);
  expect(result.stderr).toBe(
    'kairograph: invalid configuration: SOURCES_FILE source "a": layout must be one of kairosdb, heroic, table (got "influx")\n',
  );
});

it('starts with the sources of the file and serves them', async () => {
  const { path } = sourcesFile({ sources: [{ ...embedded, name: 'archive', path: tempDir() }] });
  const env = {
    ...process.env,
    SOURCES_FILE: path,
    DATA_DIR: tempDir(),
    SEED_DEMO: 'false',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', main], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    // The listening line names the URL and the sources; every line is read, since a full pipe would stall the server.
    const listening = await new Promise<Record<string, unknown>>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the gateway exited (${code}) before it listened`)));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (typeof entry['url'] === 'string') resolve(entry);
      });
    });
    expect(listening['sources']).toEqual(['kairosdb', 'archive']);
    const response = await fetch(`${String(listening['url'])}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ sources { name layout writable primary } }' }),
    });
    expect(((await response.json()) as { data: unknown }).data).toEqual({
      sources: [
        { name: 'kairosdb', layout: 'kairosdb', writable: true, primary: true },
        { name: 'archive', layout: 'kairosdb', writable: true, primary: false },
      ],
    });
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await new Promise((done) => child.once('exit', done));
  }
});

describe('openSources', () => {
  it('opens the primary source and every source of the file, each over its own store', async () => {
    const paths = [tempDir(), tempDir()];
    const { config } = sourcesFile(
      {
        sources: [
          { ...embedded, name: 'one', path: paths[0] },
          { ...embedded, name: 'two', path: paths[1] },
        ],
      },
      { PRIMARY_SOURCE_NAME: 'main' },
    );
    const primary = await EmbeddedStore.open({ path: tempDir() });
    const sources = await openSources(sourcesOptions(config), primary, loadSourcesFile(sourcesFileOptions(config)));
    try {
      expect(sources.all.map((s) => [s.name, s.layout, s.writable])).toEqual([
        ['main', 'kairosdb', true],
        ['one', 'kairosdb', true],
        ['two', 'kairosdb', true],
      ]);
      await sources.get('two').write({
        series: [{ metric: 'm', tags: { h: 'x' }, type: 'long', ttlSeconds: 0, timestamps: [5], values: [7] }],
      });
      expect(await Promise.all(sources.all.map((s) => s.metricNames('')))).toEqual([[], [], ['m']]);
      const plan = await sources.get('two').findSeries(new IndexLoaders(), 'm', { startMs: 0, endMs: 10 }, () => true);
      expect(plan.partitions.map((key) => key.tags)).toEqual([{ h: 'x' }]);
    } finally {
      await sources.close();
    }
    // Its store was the file's: opened again, it holds what was written through the source.
    const two = await EmbeddedStore.open({ path: paths[1]! });
    expect(await two.metricNames('')).toEqual(['m']);
    await two.close();
  });
});
