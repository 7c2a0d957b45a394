/**
 * SOURCES_FILE: the sources beside the primary one, as JSON (`{"sources": [{"name": ..., "layout": ..., ...}]}`),
 * read and checked once at start. A bad file stops start-up with a ConfigError that names the source and the field, in
 * the configuration's wording; nothing in it is looked at again afterwards.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../model/errors.js';
import type { StoreSettings } from '../store/open-store.js';
import {
  HEROIC_BIGTABLE_FIELDS,
  readHeroicBigtableSource,
  type HeroicBigtableSettings,
} from './heroic/heroic-bigtable-settings.js';
import { HEROIC_FIELDS, readHeroicSource, type HeroicSourceSettings } from './heroic/heroic-settings.js';
import { HEROIC_LAYOUT } from './heroic/heroic-source.js';
import { KAIROSDB_LAYOUT } from './kairosdb/kairosdb-source.js';
import { cassandraPlace, isObject, show, type SourceDefaults } from './settings-fields.js';
import { readTableSource, TABLE_FIELDS, type TableSourceSettings } from './table/table-settings.js';
import { TABLE_LAYOUT } from './table/table-source.js';
import { SOURCE_NAME, SOURCE_NAME_RULE } from './sources.js';

/** One source of the file: its name, its layout and the layout's settings. */
export type SourceSettings =
  | KairosdbSourceSettings
  | HeroicSourceSettings
  | HeroicBigtableSettings
  | TableSourceSettings;

interface KairosdbSourceSettings {
  readonly name: string;
  readonly layout: typeof KAIROSDB_LAYOUT;
  readonly store: StoreSettings;
}

const LAYOUTS = [KAIROSDB_LAYOUT, HEROIC_LAYOUT, TABLE_LAYOUT] as const;
const STORES = ['embedded', 'cassandra'] as const;
/** The fields of a kairosdb source on each store; Cassandra's may be left out for the CASSANDRA_* settings. */
const FIELDS: Readonly<Record<(typeof STORES)[number], readonly string[]>> = {
  embedded: ['name', 'layout', 'store', 'path'],
  cassandra: ['name', 'layout', 'store', 'contactPoints', 'localDataCenter', 'keyspace'],
};

const ENV = 'SOURCES_FILE';

/** What reading SOURCES_FILE takes, from the gateway's configuration. */
export interface SourcesFileOptions extends SourceDefaults {
  /** The file's path; empty for none. */
  readonly file: string;
  /** The primary source's name, which no source of the file may take. */
  readonly primaryName: string;
}

/** The sources of the file (none when there is none); a ConfigError names what is wrong. */
export function loadSourcesFile(options: SourcesFileOptions): SourceSettings[] {
  const file = options.file;
  if (file === '') return [];
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${ENV} cannot be read: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${ENV} ${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(json))
    throw new ConfigError(`${ENV} ${file} must be a JSON object {"sources": [...]} (got ${show(json)})`);
  for (const field of Object.keys(json))
    if (field !== 'sources')
      throw new ConfigError(`${ENV} ${file}: unknown field ${JSON.stringify(field)} (fields: sources)`);
  const list = json['sources'];
  if (!Array.isArray(list))
    throw new ConfigError(`${ENV} ${file}: sources must be a list of sources (got ${show(list)})`);
  // The primary source's name is taken first: a file cannot shadow it.
  const taken = new Map<string, string>([[options.primaryName, 'the primary source (PRIMARY_SOURCE_NAME)']]);
  return list.map((entry, i) => {
    const source = readSource(entry, `sources[${i}]`, options, taken);
    taken.set(source.name, `sources[${i}]`);
    return source;
  });
}

function readSource(
  entry: unknown,
  at: string,
  options: SourcesFileOptions,
  taken: ReadonlyMap<string, string>,
): SourceSettings {
  if (!isObject(entry)) throw new ConfigError(`${ENV} ${at} must be an object (got ${show(entry)})`);
  const name = entry['name'];
  if (typeof name !== 'string' || !SOURCE_NAME.test(name))
    throw new ConfigError(`${ENV} ${at}: name ${SOURCE_NAME_RULE} (got ${show(name)})`);
  const fail = (field: string, problem: string): never => {
    throw new ConfigError(`${ENV} source ${JSON.stringify(name)}: ${field} ${problem}`);
  };
  const owner = taken.get(name);
  if (owner !== undefined) fail('name', `is taken by ${owner}`);
  const layout = entry['layout'];
  if (!LAYOUTS.includes(layout as (typeof LAYOUTS)[number]))
    fail('layout', `must be one of ${LAYOUTS.join(', ')} (got ${show(layout)})`);
  // A field given (even as null) is checked; one left out takes the CASSANDRA_* setting.
  const given = (field: string, fallback?: unknown): unknown => (Object.hasOwn(entry, field) ? entry[field] : fallback);
  const text = (field: string, fallback?: string): string => {
    const value = given(field, fallback);
    if (typeof value !== 'string' || value.trim() === '')
      fail(field, `must be a non-empty string (got ${show(value)})`);
    return (value as string).trim();
  };
  if (layout === TABLE_LAYOUT) {
    for (const field of Object.keys(entry))
      if (!TABLE_FIELDS.includes(field))
        fail(
          JSON.stringify(field),
          `is not a field of a ${TABLE_LAYOUT} source (its fields: ${TABLE_FIELDS.join(', ')})`,
        );
    return readTableSource(name, given, text, fail, options);
  }
  if (layout === HEROIC_LAYOUT && given('store') !== undefined) {
    // Heroic's Cassandra table is the store when none is named, as before stores were.
    if (given('store') !== 'bigtable')
      fail(
        'store',
        `of a ${HEROIC_LAYOUT} source must be bigtable or left out (Cassandra) (got ${show(given('store'))})`,
      );
    for (const field of Object.keys(entry))
      if (!HEROIC_BIGTABLE_FIELDS.includes(field))
        fail(
          JSON.stringify(field),
          `is not a field of a ${HEROIC_LAYOUT} source on the bigtable store (its fields: ${HEROIC_BIGTABLE_FIELDS.join(', ')})`,
        );
    return readHeroicBigtableSource(name, given, text, fail, options);
  }
  if (layout === HEROIC_LAYOUT) {
    for (const field of Object.keys(entry))
      if (!HEROIC_FIELDS.includes(field))
        fail(
          JSON.stringify(field),
          `is not a field of a ${HEROIC_LAYOUT} source (its fields: ${HEROIC_FIELDS.join(', ')})`,
        );
    return readHeroicSource(name, given, text, fail, options);
  }
  const kind = entry['store'];
  if (!STORES.includes(kind as (typeof STORES)[number]))
    fail('store', `must be one of ${STORES.join(', ')} (got ${show(kind)})`);
  const fields = FIELDS[kind as (typeof STORES)[number]];
  for (const field of Object.keys(entry)) {
    if (!fields.includes(field))
      fail(
        JSON.stringify(field),
        `is not a field of a ${KAIROSDB_LAYOUT} source on the ${kind} store (its fields: ${fields.join(', ')})`,
      );
  }
  if (kind === 'embedded') return { name, layout: KAIROSDB_LAYOUT, store: { kind, path: text('path') } };
  return {
    name,
    layout: KAIROSDB_LAYOUT,
    store: { kind: 'cassandra', ...cassandraPlace(given, text, fail, options, options.cassandra.keyspace) },
  };
}
