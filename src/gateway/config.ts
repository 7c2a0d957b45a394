/**
 * The gateway's configuration: one table of settings read from the environment, validated at start. A bad value
 * stops start-up with a message that names the variable and the value. The table of docs/configuration.md is checked
 * against SETTINGS by a test.
 */

import { ConfigError } from '../model/errors.js';
import { SERVER_SETTINGS } from './settings/server-settings.js';
import { CASSANDRA_SETTINGS } from './settings/cassandra-settings.js';
import { PROCESS_SETTINGS } from './settings/process-settings.js';
import { LIMIT_SETTINGS } from './settings/limit-settings.js';
import { SHARING_SETTINGS } from './settings/sharing-settings.js';
import { GRAPHQL_SETTINGS } from './settings/graphql-settings.js';
import { SECURITY_SETTINGS } from './settings/security-settings.js';
import { INGEST_TCP_SETTINGS } from './settings/ingest-tcp-settings.js';
import { LINE_PROTOCOL_SETTINGS } from './settings/line-protocol-settings.js';
import type { Config } from './settings/setting.js';

export type { Config };

/** What a process prints before it exits 2 on a configuration it cannot run with; undefined for any other failure. */
export function invalidConfiguration(error: unknown): string | undefined {
  return error instanceof ConfigError ? `kairograph: invalid configuration: ${error.message}\n` : undefined;
}

/** Every setting, in the order docs/configuration.md lists them. */
export const SETTINGS = [
  ...SERVER_SETTINGS,
  ...CASSANDRA_SETTINGS,
  ...PROCESS_SETTINGS,
  ...LIMIT_SETTINGS,
  ...SHARING_SETTINGS,
  ...GRAPHQL_SETTINGS,
  ...SECURITY_SETTINGS,
  ...INGEST_TCP_SETTINGS,
  ...LINE_PROTOCOL_SETTINGS,
] as const;

export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const config: Partial<Record<keyof Config, unknown>> = {};
  for (const s of SETTINGS) {
    const raw = env[s.env];
    config[s.key] = s.parse(raw === undefined || raw.trim() === '' ? s.default : raw.trim(), s.env);
  }
  return config as unknown as Config;
}
