/**
 * SOURCES_FILE: the sources beside the primary one, as JSON (`{"sources": [{"name": ..., "layout": ..., ...}]}`),
 * read and checked once at start. A bad file stops start-up with a message that names the source and the field, in
 * config.ts's wording; nothing in it is looked at again afterwards.
 */
import { readFileSync } from 'node:fs';
import { ConfigError, type Config } from '../config.js';
import { contactPointProblem, keyspaceProblem } from '../store/cassandra/options.js';
import type { StoreSettings } from '../store/open-store.js';
import { KAIROSDB_LAYOUT } from './kairosdb/kairosdb-source.js';
import { SOURCE_NAME, SOURCE_NAME_RULE } from './sources.js';

/** One source of the file: its name, its layout and the layout's settings. */
export interface SourceSettings {
  readonly name: string;
  readonly layout: typeof KAIROSDB_LAYOUT;
  readonly store: StoreSettings;
}

const LAYOUTS = [KAIROSDB_LAYOUT] as const;
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
  const kind = entry['store'];
  if (!STORES.includes(kind as (typeof STORES)[number])) fail('store', `must be one of ${STORES.join(', ')} (got ${show(kind)})`);
  const fields = FIELDS[kind as (typeof STORES)[number]];
  for (const field of Object.keys(entry)) {
    if (!fields.includes(field)) fail(JSON.stringify(field), `is not a field of a ${KAIROSDB_LAYOUT} source on the ${kind} store (its fields: ${fields.join(', ')})`);
  }
  // A field given (even as null) is checked; one left out takes the CASSANDRA_* setting.
  const given = (field: string, fallback?: unknown): unknown => (Object.hasOwn(entry, field) ? entry[field] : fallback);
  const text = (field: string, fallback?: string): string => {
    const value = given(field, fallback);
    if (typeof value !== 'string' || value.trim() === '') fail(field, `must be a non-empty string (got ${show(value)})`);
    return (value as string).trim();
  };
  if (kind === 'embedded') return { name, layout: KAIROSDB_LAYOUT, store: { kind, path: text('path') } };

  const points = given('contactPoints', config.cassandraContactPoints);
  if (!Array.isArray(points) || points.length === 0) fail('contactPoints', `must be a non-empty list of "host" or "host:port" (got ${show(points)})`);
  const contactPoints = (points as unknown[]).map((point, k) => {
    if (typeof point !== 'string') fail(`contactPoints[${k}]`, `must be "host" or "host:port" (got ${show(point)})`);
    const problem = contactPointProblem((point as string).trim());
    if (problem !== undefined) fail(`contactPoints[${k}]:`, problem);
    return (point as string).trim();
  });
  const keyspace = text('keyspace', config.cassandraKeyspace);
  const problem = keyspaceProblem(keyspace);
  if (problem !== undefined) fail('keyspace:', problem);
  return { name, layout: KAIROSDB_LAYOUT, store: { kind: 'cassandra', contactPoints, localDataCenter: text('localDataCenter', config.cassandraLocalDc), keyspace } };
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
