/**
 * A heroic source on the bigtable store in SOURCES_FILE: Heroic's table in a Bigtable instance, where it is reached,
 * and how its series are found (as for Cassandra: a catalogue scanned from the row keys, or a list).
 */
import { show, type Fail, type Given, type SourceDefaults, type Text } from '../settings-fields.js';
import { readCatalogue, type HeroicSourceSettings } from './heroic-settings.js';
import { HEROIC_LAYOUT } from './heroic-source.js';

export interface HeroicBigtableSettings {
  readonly name: string;
  readonly layout: typeof HEROIC_LAYOUT;
  readonly bigtable: {
    readonly project: string;
    readonly instance: string;
    readonly table: string;
    /**
     * `host:port`: `endpoint`, else BIGTABLE_EMULATOR_HOST (both spoken to in plain text, without credentials), else
     * Google's service.
     */
    readonly endpoint: string;
    /** Whether `endpoint` is Google's service: TLS, and the machine's access token (store/bigtable/access-token.ts). */
    readonly google: boolean;
  };
  readonly catalogue: HeroicSourceSettings['catalogue'];
}

/** Google's Bigtable service. */
const GOOGLE_ENDPOINT = 'bigtable.googleapis.com:443';

/** The fields of a heroic source on the bigtable store. */
export const HEROIC_BIGTABLE_FIELDS = [
  'name',
  'layout',
  'store',
  'project',
  'instance',
  'table',
  'endpoint',
  'catalogue',
  'catalogueRefreshSeconds',
  'series',
];

/** Bigtable's rules for ids: a project 6 to 30 characters, an instance 6 to 33, a table 1 to 50. */
const IDS = [
  ['project', /^[a-z][a-z0-9-]{4,28}[a-z0-9]$|^[a-z0-9.:-]{1,63}$/],
  ['instance', /^[a-z][a-z0-9_-]{0,31}[a-z0-9]$|^[a-z]$/],
  ['table', /^[A-Za-z0-9_.-]{1,50}$/],
] as const;

export function readHeroicBigtableSource(
  name: string,
  given: Given,
  text: Text,
  fail: Fail,
  options: SourceDefaults,
): HeroicBigtableSettings {
  const ids: Record<string, string> = {};
  for (const [field, rule] of IDS) {
    const value = text(field, field === 'table' ? 'metrics' : undefined);
    if (!rule.test(value)) fail(field, `is not a Bigtable ${field} id (got ${show(value)})`);
    ids[field] = value;
  }
  const google = given('endpoint') === undefined && !options.bigtableEmulatorHost;
  const endpoint = text('endpoint', options.bigtableEmulatorHost || GOOGLE_ENDPOINT);
  if (!/^[^\s:/]+:\d{1,5}$/.test(endpoint) || Number(endpoint.slice(endpoint.lastIndexOf(':') + 1)) > 65_535)
    fail('endpoint', `must be "host:port" (got ${show(endpoint)})`);
  return {
    name,
    layout: HEROIC_LAYOUT,
    bigtable: { project: ids['project']!, instance: ids['instance']!, table: ids['table']!, endpoint, google },
    catalogue: readCatalogue(name, given, text, fail, options, 'bigtable'),
  };
}
