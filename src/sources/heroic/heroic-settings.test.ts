/**
 * A heroic source of SOURCES_FILE, read through the whole file: its schema, keyspace and catalogue, or a list of series
 * instead, and the exact message for each field a bad one gets wrong.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { sourcesFile } from '../../../test/support/sources-file.js';
import { removeTempDirs } from '../../../test/support/temp-dir.js';
import { sourcesFileOptions } from '../../gateway/layer-options.js';
import { loadSourcesFile } from '../sources-file.js';

afterAll(removeTempDirs);

describe('loadSourcesFile: heroic sources', () => {
  it('reads heroic sources: schema, keyspace, catalogue, or a list of series instead', () => {
    const { config } = sourcesFile(
      {
        sources: [
          { name: 'h', layout: 'heroic' },
          {
            name: 'old',
            layout: 'heroic',
            schema: 'legacy',
            keyspace: 'heroic_old',
            contactPoints: ['h-1'],
            catalogue: '/var/lib/cat',
            catalogueRefreshSeconds: 60,
            configure: true,
          },
          {
            name: 'few',
            layout: 'heroic',
            series: [{ key: 'cpu', tags: { host: 'a' }, resource: { pod: 'p' } }, { key: 'mem' }],
          },
        ],
      },
      { CASSANDRA_CONTACT_POINTS: 'c-1', CASSANDRA_LOCAL_DC: 'east', DATA_DIR: '/data' },
    );
    const sources = loadSourcesFile(sourcesFileOptions(config));
    expect(
      sources.map((s) =>
        s.layout === 'heroic' && 'schema' in s ? [s.name, s.schema, s.cassandra, s.configure, s.catalogue] : s.name,
      ),
    ).toEqual([
      [
        'h',
        'ng',
        { contactPoints: ['c-1'], localDataCenter: 'east', keyspace: 'heroic' },
        false,
        { kind: 'scan', path: '/data/heroic-catalogues/h', refreshIntervalMs: 600_000 },
      ],
      [
        'old',
        'legacy',
        { contactPoints: ['h-1'], localDataCenter: 'east', keyspace: 'heroic_old' },
        true,
        { kind: 'scan', path: '/var/lib/cat', refreshIntervalMs: 60_000 },
      ],
      [
        'few',
        'ng',
        { contactPoints: ['c-1'], localDataCenter: 'east', keyspace: 'heroic' },
        false,
        {
          kind: 'static',
          series: [
            { key: 'cpu', tags: { host: 'a' }, resource: { pod: 'p' } },
            { key: 'mem', tags: {}, resource: {} },
          ],
        },
      ],
    ]);
  });

  const heroic = { name: 'a', layout: 'heroic' };
  const bigtable = {
    ...heroic,
    store: 'bigtable',
    project: 'my-project',
    instance: 'heroic',
    endpoint: '127.0.0.1:8086',
  };

  it('reads a heroic source on the bigtable store: table metrics by default, BIGTABLE_EMULATOR_HOST for the endpoint', () => {
    const { name: _, ...rest } = bigtable;
    const { config } = sourcesFile(
      {
        sources: [
          { ...rest, name: 'bt', endpoint: undefined },
          { ...rest, name: 'bt2', table: 'points_v2', series: [{ key: 'cpu', resource: { pod: 'p' } }] },
        ],
      },
      { BIGTABLE_EMULATOR_HOST: '10.0.0.1:9035', DATA_DIR: '/data' },
    );
    const google = sourcesFile({ sources: [{ ...rest, name: 'gcp', endpoint: undefined }] });
    expect(loadSourcesFile(sourcesFileOptions(config))).toEqual([
      {
        name: 'bt',
        layout: 'heroic',
        bigtable: {
          project: 'my-project',
          instance: 'heroic',
          table: 'metrics',
          endpoint: '10.0.0.1:9035',
          google: false,
        },
        catalogue: { kind: 'scan', path: '/data/heroic-catalogues/bt', refreshIntervalMs: 600_000 },
      },
      {
        name: 'bt2',
        layout: 'heroic',
        bigtable: {
          project: 'my-project',
          instance: 'heroic',
          table: 'points_v2',
          endpoint: '127.0.0.1:8086',
          google: false,
        },
        catalogue: { kind: 'static', series: [{ key: 'cpu', tags: {}, resource: { pod: 'p' } }] },
      },
    ]);
    // Neither an endpoint nor BIGTABLE_EMULATOR_HOST: Google's service.
    expect(loadSourcesFile(sourcesFileOptions(google.config)).map((s) => ('bigtable' in s ? s.bigtable : s))).toEqual([
      {
        project: 'my-project',
        instance: 'heroic',
        table: 'metrics',
        endpoint: 'bigtable.googleapis.com:443',
        google: true,
      },
    ]);
  });
  it.each([
    ['an unknown schema', { ...heroic, schema: 'v2' }, 'schema must be one of ng, legacy (got "v2")'],
    [
      'a store other than bigtable',
      { ...heroic, store: 'cassandra' },
      'store of a heroic source must be bigtable or left out (Cassandra) (got "cassandra")',
    ],
    [
      'a Cassandra field on the bigtable store',
      { ...bigtable, keyspace: 'heroic' },
      '"keyspace" is not a field of a heroic source on the bigtable store (its fields: name, layout, store, project, instance, table, endpoint, catalogue, catalogueRefreshSeconds, series)',
    ],
    ['an empty endpoint', { ...bigtable, endpoint: ' ' }, 'endpoint must be a non-empty string (got " ")'],
    [
      'an endpoint without a port',
      { ...bigtable, endpoint: 'localhost' },
      'endpoint must be "host:port" (got "localhost")',
    ],
    [
      'a bad instance id',
      { ...bigtable, instance: 'Heroic!' },
      'instance is not a Bigtable instance id (got "Heroic!")',
    ],
    ['configure that is not a boolean', { ...heroic, configure: 'yes' }, 'configure must be true or false (got "yes")'],
    [
      'a refresh of no seconds',
      { ...heroic, catalogueRefreshSeconds: 0 },
      'catalogueRefreshSeconds must be a whole number of seconds from 1 to 604800 (got 0)',
    ],
    [
      'both series and a catalogue',
      { ...heroic, series: [{ key: 'm' }], catalogue: '/x' },
      'series lists the series instead of a catalogue: leave out catalogue and catalogueRefreshSeconds',
    ],
    [
      'an empty series list',
      { ...heroic, series: [] },
      'series must be a non-empty list of {"key": ..., "tags": {...}, "resource": {...}} (got [])',
    ],
    [
      'a series without a key',
      { ...heroic, series: [{ tags: {} }] },
      'series[0].key must be a non-empty string (got nothing)',
    ],
    [
      'a tag that is not a string',
      { ...heroic, series: [{ key: 'm', tags: { host: 1 } }] },
      'series[0].tags.host must be a string (got 1)',
    ],
    [
      'a misspelt series field',
      { ...heroic, series: [{ key: 'm', tag: {} }] },
      'series[0].tag is not a field of a series (its fields: key, tags, resource)',
    ],
    [
      'a tag named as a resource entry',
      { ...heroic, series: [{ key: 'm', tags: { 'resource:pod': 'p' } }] },
      'series[0].tags.resource:pod must not start with "resource:": list it under resource',
    ],
    [
      'a resource in a legacy series',
      { ...heroic, schema: 'legacy', series: [{ key: 'm', resource: { r: 'x' } }] },
      "series[0].resource must be empty: Heroic's legacy keys hold no resource",
    ],
    [
      'a bad keyspace',
      { ...heroic, keyspace: 'Heroic' },
      'keyspace: the keyspace must be 1 to 48 lower-case letters, digits or _, starting with a letter (got "Heroic")',
    ],
  ])('refuses a heroic source with %s, naming the field', (_, source, message) => {
    expect(() => loadSourcesFile(sourcesFileOptions(sourcesFile({ sources: [source] }).config))).toThrow(
      `SOURCES_FILE source "a": ${message}`,
    );
  });
});
