import { ConfigError } from '../../model/errors.js';
import { contactPointProblem, tableOptionsProblem, type TableName } from '../../store/cassandra/options.js';
import { SCOPES, isScope, type Scope } from '../../model/principal.js';
import { SOURCE_NAME, SOURCE_NAME_RULE } from '../../sources/sources.js';
import { parseTagIndexConfig, type TagIndexConfig } from '../../store/tag-index.js';

export function integer(raw: string, env: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${env} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  }
  return value;
}

export function sourceName(raw: string, env: string): string {
  if (!SOURCE_NAME.test(raw)) throw new ConfigError(`${env} ${SOURCE_NAME_RULE} (got ${JSON.stringify(raw)})`);
  return raw;
}

export function nonEmpty(raw: string, env: string): string {
  if (raw.length === 0) throw new ConfigError(`${env} must not be empty`);
  return raw;
}

export function oneOf<T extends string>(raw: string, env: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${env} must be one of ${allowed.join(', ')} (got ${JSON.stringify(raw)})`);
  }
  return raw as T;
}

export function list(raw: string): string[] {
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

export function anonymousScopes(raw: string, env: string): 'auto' | Scope[] {
  if (raw === 'auto') return 'auto';
  if (raw === 'none') return [];
  const scopes = list(raw);
  const unknown = scopes.find((scope) => !isScope(scope));
  if (unknown !== undefined || scopes.length === 0) {
    throw new ConfigError(
      `${env} must be auto, none, or scopes separated by commas from ${SCOPES.join(', ')} (got ${JSON.stringify(raw)})`,
    );
  }
  return [...new Set(scopes as Scope[])];
}

export function allowedHosts(raw: string, env: string): 'auto' | '*' | string[] {
  if (raw === 'auto' || raw === '*') return raw;
  const names = list(raw);
  const bad = names.find(
    (name) => !/^\.?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(name),
  );
  if (bad !== undefined || names.length === 0)
    throw new ConfigError(
      `${env} must be auto, *, or host names separated by commas (got ${JSON.stringify(bad ?? raw)})`,
    );
  return names;
}

export function corsOrigins(raw: string, env: string): '*' | string[] {
  if (raw === '*') return raw;
  return list(raw).map((origin) => {
    const url = URL.canParse(origin) ? new URL(origin) : undefined;
    // An origin is a scheme, a host and a port, as browsers send it in Origin: no path, no trailing slash, no user.
    const bare =
      url !== undefined &&
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.username === '' &&
      /^[a-z]+:\/\/[^/?#]+$/i.test(origin);
    if (!bare)
      throw new ConfigError(
        `${env} must be * or origins such as https://grafana.example:3000 (scheme, host and port only) separated by commas (got ${JSON.stringify(origin)})`,
      );
    return url.origin;
  });
}

export function boolean(raw: string, env: string): boolean {
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${env} must be true or false (got ${JSON.stringify(raw)})`);
}

export function checked(raw: string, env: string, problem: string | undefined): string {
  if (problem !== undefined) throw new ConfigError(`${env}: ${problem}`);
  return raw;
}

export function contactPoints(raw: string, env: string): string[] {
  const points = raw.split(',').map((p) => p.trim());
  for (const point of points) checked(point, env, contactPointProblem(point));
  return points;
}

export function tableOptions(raw: string, env: string): Partial<Record<TableName, string>> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ConfigError(`${env} must be a JSON object from table name to options (got ${JSON.stringify(raw)})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`${env} must be a JSON object from table name to options (got ${JSON.stringify(raw)})`);
  }
  checked(raw, env, tableOptionsProblem(value as Record<string, unknown>));
  return value as Partial<Record<TableName, string>>;
}

export function tagIndexedMetrics(raw: string, env: string): TagIndexConfig {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ConfigError(
      `${env} must be a JSON object from metric to a list of tags, or a JSON list of metrics (got ${JSON.stringify(raw)})`,
    );
  }
  try {
    return parseTagIndexConfig(value);
  } catch (error) {
    throw new ConfigError(`${env} ${(error as Error).message}`);
  }
}
