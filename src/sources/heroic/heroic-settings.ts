/**
 * A heroic source of SOURCES_FILE: Heroic's `metrics` table in a keyspace and how its series are found, read and
 * checked in the configuration's wording. Beside its layout rather than in the file's reading (sources-file.ts), which
 * only picks the layout's reader.
 */
import { join } from 'node:path';
import { dict } from '../../lib/dict.js';
import {
  cassandraPlace,
  DEFAULT_REFRESH_SECONDS,
  isObject,
  show,
  type Fail,
  type Given,
  type SourceDefaults,
  type Text,
} from '../settings-fields.js';
import { HEROIC_LAYOUT, RESOURCE_PREFIX } from './heroic-source.js';
import type { HeroicSeries } from './key-bytes.js';
import type { HeroicSchema } from './partitions.js';

/** Heroic's `metrics` table in a keyspace, and how its series are found (../catalogue/). */
export interface HeroicSourceSettings {
  readonly name: string;
  readonly layout: typeof HEROIC_LAYOUT;
  readonly schema: HeroicSchema;
  readonly cassandra: {
    readonly contactPoints: readonly string[];
    readonly localDataCenter: string;
    readonly keyspace: string;
  };
  /** Create the keyspace and table when missing, as Heroic's own `configure: true`. */
  readonly configure: boolean;
  readonly catalogue:
    | { readonly kind: 'scan'; readonly path: string; readonly refreshIntervalMs: number }
    | { readonly kind: 'static'; readonly series: readonly HeroicSeries[] };
}

const SCHEMAS = ['ng', 'legacy'] as const;
/** The fields of a heroic source; Cassandra's may be left out for the CASSANDRA_* settings. */
export const HEROIC_FIELDS = [
  'name',
  'layout',
  'schema',
  'contactPoints',
  'localDataCenter',
  'keyspace',
  'configure',
  'catalogue',
  'catalogueRefreshSeconds',
  'series',
];

/** A heroic source's settings, its fields already known to be a heroic source's. */
export function readHeroicSource(
  name: string,
  given: Given,
  text: Text,
  fail: Fail,
  options: SourceDefaults,
): HeroicSourceSettings {
  const schema = given('schema', 'ng');
  if (!SCHEMAS.includes(schema as (typeof SCHEMAS)[number]))
    fail('schema', `must be one of ${SCHEMAS.join(', ')} (got ${show(schema)})`);
  const configure = given('configure', false);
  if (typeof configure !== 'boolean') fail('configure', `must be true or false (got ${show(configure)})`);
  const cassandra = cassandraPlace(given, text, fail, options, 'heroic');
  const base = {
    name,
    layout: HEROIC_LAYOUT,
    schema: schema as HeroicSchema,
    cassandra,
    configure: configure as boolean,
  } as const;
  return { ...base, catalogue: readCatalogue(name, given, text, fail, options, schema as HeroicSchema) };
}

/** How a heroic source's series are found: listed in its settings, or a catalogue file its scan keeps. */
export function readCatalogue(
  name: string,
  given: Given,
  text: Text,
  fail: Fail,
  options: SourceDefaults,
  schema: HeroicSchema,
): HeroicSourceSettings['catalogue'] {
  const listed = given('series');
  if (listed !== undefined) {
    if (given('catalogue') !== undefined || given('catalogueRefreshSeconds') !== undefined)
      fail('series', 'lists the series instead of a catalogue: leave out catalogue and catalogueRefreshSeconds');
    if (!Array.isArray(listed) || listed.length === 0)
      fail(
        'series',
        `must be a non-empty list of {"key": ..., "tags": {...}, "resource": {...}} (got ${show(listed)})`,
      );
    return {
      kind: 'static',
      series: (listed as unknown[]).map((s, i) => readSeries(s, `series[${i}]`, schema, fail)),
    };
  }
  const path = text('catalogue', join(options.dataDir, 'heroic-catalogues', name));
  const refresh = given('catalogueRefreshSeconds', DEFAULT_REFRESH_SECONDS);
  if (typeof refresh !== 'number' || !Number.isInteger(refresh) || refresh < 1 || refresh > 604_800)
    fail('catalogueRefreshSeconds', `must be a whole number of seconds from 1 to 604800 (got ${show(refresh)})`);
  return { kind: 'scan', path, refreshIntervalMs: (refresh as number) * 1000 };
}

function readSeries(value: unknown, at: string, schema: HeroicSchema, fail: Fail): HeroicSeries {
  if (!isObject(value)) fail(at, `must be {"key": ..., "tags": {...}, "resource": {...}} (got ${show(value)})`);
  const entry = value as Record<string, unknown>;
  for (const field of Object.keys(entry))
    if (!['key', 'tags', 'resource'].includes(field))
      fail(`${at}.${field}`, 'is not a field of a series (its fields: key, tags, resource)');
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
  if (schema === 'legacy' && Object.keys(resource).length > 0)
    fail(`${at}.resource`, "must be empty: Heroic's legacy keys hold no resource");
  const tags = map('tags');
  // Resource entries show as `resource:` tags: a tag of that name could not be told from one.
  for (const name of Object.keys(tags))
    if (name.startsWith(RESOURCE_PREFIX))
      fail(`${at}.tags.${name}`, `must not start with "${RESOURCE_PREFIX}": list it under resource`);
  return { key: key as string, tags, resource };
}
