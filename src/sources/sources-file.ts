/**
 * SOURCES_FILE: the sources beside the primary one, as JSON (`{"sources": [{"name": ..., "layout": ..., ...}]}`),
 * read and checked once at start. A bad file stops start-up with a message that names the source and the field, in
 * config.ts's wording; nothing in it is looked at again afterwards.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type Config } from '../config.js';
import { contactPointProblem, keyspaceProblem } from '../store/cassandra/options.js';
import type { StoreSettings } from '../store/open-store.js';
import { dict } from '../dict.js';
import { HEROIC_LAYOUT } from './heroic/heroic-source.js';
import type { HeroicSchema, HeroicSeries } from './heroic/row-key.js';
import { KAIROSDB_LAYOUT } from './kairosdb/kairosdb-source.js';
import { SOURCE_NAME, SOURCE_NAME_RULE } from './sources.js';

/** One source of the file: its name, its layout and the layout's settings. */
export type SourceSettings = KairosdbSourceSettings | HeroicSourceSettings;

export interface KairosdbSourceSettings {
  readonly name: string;
  readonly layout: typeof KAIROSDB_LAYOUT;
  readonly store: StoreSettings;
}

/** Heroic's `metrics` table in a keyspace, and how its series are found (heroic/catalogue.ts). */
export interface HeroicSourceSettings {
  readonly name: string;
  readonly layout: typeof HEROIC_LAYOUT;
  readonly schema: HeroicSchema;
  readonly cassandra: { readonly contactPoints: readonly string[]; readonly localDataCenter: string; readonly keyspace: string };
  /** Create the keyspace and table when missing, as Heroic's own `configure: true`. */
  readonly configure: boolean;
  readonly catalogue:
    | { readonly kind: 'scan'; readonly path: string; readonly refreshIntervalMs: number }
    | { readonly kind: 'static'; readonly series: readonly HeroicSeries[] };
}

const LAYOUTS = [KAIROSDB_LAYOUT, HEROIC_LAYOUT] as const;
const SCHEMAS = ['ng', 'legacy'] as const;
/** The fields of a heroic source; Cassandra's may be left out for the CASSANDRA_* settings. */
const HEROIC_FIELDS = ['name', 'layout', 'schema', 'contactPoints', 'localDataCenter', 'keyspace', 'configure', 'catalogue', 'catalogueRefreshSeconds', 'series'];
/** A catalogue's pause between passes over the table, by default. */
const DEFAULT_REFRESH_SECONDS = 600;
const STORES = ['embedded', 'cassandra'] as const;
/** The fields of a kairosdb source on each store; Cassandra's may be left out for the CASSANDRA_* settings. */
const FIELDS: Readonly<Record<(typeof STORES)[number], readonly string[]>> = {
  embedded: ['name', 'layout', 'store', 'path'],
  cassandra: ['name', 'layout', 'store', 'contactPoints', 'localDataCenter', 'keyspace'],
};

const ENV = 'SOURCES_FILE';

/** The sources of `config.sourcesFile` (none when it is empty); a ConfigError names what is wrong. */
export function loadSourcesFile(config: Config): SourceSettings[] {
  const file = config.sourcesFile;
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
  if (!isObject(json)) throw new ConfigError(`${ENV} ${file} must be a JSON object {"sources": [...]} (got ${show(json)})`);
  for (const field of Object.keys(json)) if (field !== 'sources') throw new ConfigError(`${ENV} ${file}: unknown field ${JSON.stringify(field)} (fields: sources)`);
  const list = json['sources'];
  if (!Array.isArray(list)) throw new ConfigError(`${ENV} ${file}: sources must be a list of sources (got ${show(list)})`);
  // The primary source's name is taken first: a file cannot shadow it.
  const taken = new Map<string, string>([[config.primarySourceName, 'the primary source (PRIMARY_SOURCE_NAME)']]);
  return list.map((entry, i) => {
    const source = readSource(entry, `sources[${i}]`, config, taken);
    taken.set(source.name, `sources[${i}]`);
    return source;
  });
}

function readSource(entry: unknown, at: string, config: Config, taken: ReadonlyMap<string, string>): SourceSettings {
  if (!isObject(entry)) throw new ConfigError(`${ENV} ${at} must be an object (got ${show(entry)})`);
  const name = entry['name'];
  if (typeof name !== 'string' || !SOURCE_NAME.test(name)) throw new ConfigError(`${ENV} ${at}: name ${SOURCE_NAME_RULE} (got ${show(name)})`);
  const fail = (field: string, problem: string): never => {
    throw new ConfigError(`${ENV} source ${JSON.stringify(name)}: ${field} ${problem}`);
  };
  const owner = taken.get(name);
  if (owner !== undefined) fail('name', `is taken by ${owner}`);
  const layout = entry['layout'];
  if (!LAYOUTS.includes(layout as (typeof LAYOUTS)[number])) fail('layout', `must be one of ${LAYOUTS.join(', ')} (got ${show(layout)})`);
  // A field given (even as null) is checked; one left out takes the CASSANDRA_* setting.
  const given = (field: string, fallback?: unknown): unknown => (Object.hasOwn(entry, field) ? entry[field] : fallback);
  const text = (field: string, fallback?: string): string => {
    const value = given(field, fallback);
    if (typeof value !== 'string' || value.trim() === '') fail(field, `must be a non-empty string (got ${show(value)})`);
    return (value as string).trim();
  };
  if (layout === HEROIC_LAYOUT) {
    for (const field of Object.keys(entry)) if (!HEROIC_FIELDS.includes(field)) fail(JSON.stringify(field), `is not a field of a ${HEROIC_LAYOUT} source (its fields: ${HEROIC_FIELDS.join(', ')})`);
    return readHeroicSource(name, given, text, fail, config);
  }
  const kind = entry['store'];
  if (!STORES.includes(kind as (typeof STORES)[number])) fail('store', `must be one of ${STORES.join(', ')} (got ${show(kind)})`);
  const fields = FIELDS[kind as (typeof STORES)[number]];
  for (const field of Object.keys(entry)) {
    if (!fields.includes(field)) fail(JSON.stringify(field), `is not a field of a ${KAIROSDB_LAYOUT} source on the ${kind} store (its fields: ${fields.join(', ')})`);
  }
  if (kind === 'embedded') return { name, layout: KAIROSDB_LAYOUT, store: { kind, path: text('path') } };
  return { name, layout: KAIROSDB_LAYOUT, store: { kind: 'cassandra', ...cassandraPlace(given, text, fail, config, config.cassandraKeyspace) } };
}

type Given = (field: string, fallback?: unknown) => unknown;
type Text = (field: string, fallback?: string) => string;
type Fail = (field: string, problem: string) => never;

function readHeroicSource(name: string, given: Given, text: Text, fail: Fail, config: Config): HeroicSourceSettings {
  const schema = given('schema', 'ng');
  if (!SCHEMAS.includes(schema as HeroicSchema)) fail('schema', `must be one of ${SCHEMAS.join(', ')} (got ${show(schema)})`);
  const configure = given('configure', false);
  if (typeof configure !== 'boolean') fail('configure', `must be true or false (got ${show(configure)})`);
  const cassandra = cassandraPlace(given, text, fail, config, 'heroic');
  const base = { name, layout: HEROIC_LAYOUT, schema: schema as HeroicSchema, cassandra, configure: configure as boolean } as const;
  const listed = given('series');
  if (listed !== undefined) {
    if (given('catalogue') !== undefined || given('catalogueRefreshSeconds') !== undefined) fail('series', 'lists the series instead of a catalogue: leave out catalogue and catalogueRefreshSeconds');
    if (!Array.isArray(listed) || listed.length === 0) fail('series', `must be a non-empty list of {"key": ..., "tags": {...}, "resource": {...}} (got ${show(listed)})`);
    return { ...base, catalogue: { kind: 'static', series: (listed as unknown[]).map((s, i) => readSeries(s, `series[${i}]`, schema as HeroicSchema, fail)) } };
  }
  const path = text('catalogue', join(config.dataDir, 'heroic-catalogues', name));
  const refresh = given('catalogueRefreshSeconds', DEFAULT_REFRESH_SECONDS);
  if (typeof refresh !== 'number' || !Number.isInteger(refresh) || refresh < 1 || refresh > 604_800) fail('catalogueRefreshSeconds', `must be a whole number of seconds from 1 to 604800 (got ${show(refresh)})`);
  return { ...base, catalogue: { kind: 'scan', path, refreshIntervalMs: (refresh as number) * 1000 } };
}

function readSeries(value: unknown, at: string, schema: HeroicSchema, fail: Fail): HeroicSeries {
  if (!isObject(value)) fail(at, `must be {"key": ..., "tags": {...}, "resource": {...}} (got ${show(value)})`);
  const entry = value as Record<string, unknown>;
  for (const field of Object.keys(entry)) if (!['key', 'tags', 'resource'].includes(field)) fail(`${at}.${field}`, 'is not a field of a series (its fields: key, tags, resource)');
  const key = entry['key'];
  if (typeof key !== 'string' || key === '') fail(`${at}.key`, `must be a non-empty string (got ${show(key)})`);
  const map = (field: 'tags' | 'resource'): Record<string, string> => {
    const raw = entry[field] ?? {};
    if (!isObject(raw)) fail(`${at}.${field}`, `must be an object of strings (got ${show(raw)})`);
    const out = dict<string>();
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
      if (typeof v !== 'string') fail(`${at}.${field}.${k}`, `must be a string (got ${show(v)})`);
      out[k] = v as string;
    }
    return out;
  };
  const resource = map('resource');
  if (schema === 'legacy' && Object.keys(resource).length > 0) fail(`${at}.resource`, "must be empty: Heroic's legacy keys hold no resource");
  return { key: key as string, tags: map('tags'), resource };
}

/** Where a Cassandra source's keyspace is: given fields, or the CASSANDRA_* settings (`keyspace` defaults to `defaultKeyspace`). */
function cassandraPlace(given: Given, text: Text, fail: Fail, config: Config, defaultKeyspace: string) {
  const points = given('contactPoints', config.cassandraContactPoints);
  if (!Array.isArray(points) || points.length === 0) fail('contactPoints', `must be a non-empty list of "host" or "host:port" (got ${show(points)})`);
  const contactPoints = (points as unknown[]).map((point, k) => {
    if (typeof point !== 'string') fail(`contactPoints[${k}]`, `must be "host" or "host:port" (got ${show(point)})`);
    const problem = contactPointProblem((point as string).trim());
    if (problem !== undefined) fail(`contactPoints[${k}]:`, problem);
    return (point as string).trim();
  });
  const keyspace = text('keyspace', defaultKeyspace);
  const problem = keyspaceProblem(keyspace);
  if (problem !== undefined) fail('keyspace:', problem);
  return { contactPoints, localDataCenter: text('localDataCenter', config.cassandraLocalDc), keyspace };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value as JSON in a message, cut short: a whole file could be shown otherwise. */
function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}
