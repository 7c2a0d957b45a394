/**
 * Configuration: defaults, validation messages that name the variable and value, the README's table, and the
 * real process refusing to start on a bad value.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig, SETTINGS } from './config.js';

describe('loadConfig', () => {
  it('has documented defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 4000,
      host: '127.0.0.1',
      store: 'embedded',
      dataDir: './data',
      logLevel: 'info',
      seedDemo: true,
      maxWritePoints: 100_000,
      maxQuerySeries: 100_000,
      maxPointsRead: 100_000_000,
      maxQueryPoints: 1_000_000,
      queryTimeoutMs: 30_000,
      restMaxBodyBytes: 16_777_216,
      restTagsRowPeriods: 3,
      graphqlMaxDepth: 12,
      graphqlMaxAliases: 500,
      graphqlMaxCost: 50_000,
      graphqlMaxTokens: 20_000,
      graphqlIntrospection: true,
      persistedOnly: false,
      trustedClientTokens: [],
      persistedOperationsFile: '',
    });
  });

  it('reads lists of tokens', () => {
    expect(loadConfig({ TRUSTED_CLIENT_TOKENS: ' grafana-1 , ci ,,' }).trustedClientTokens).toEqual(['grafana-1', 'ci']);
  });

  it('reads and trims values', () => {
    expect(loadConfig({ PORT: ' 8080 ', SEED_DEMO: 'false', LOG_LEVEL: 'debug' })).toMatchObject({ port: 8080, seedDemo: false, logLevel: 'debug' });
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT must be an integer from 0 to 65535 (got "abc")'],
    [{ PORT: '70000' }, 'PORT must be an integer from 0 to 65535 (got "70000")'],
    [{ STORE: 'mysql' }, 'STORE must be one of embedded (got "mysql")'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")'],
    [{ SEED_DEMO: 'maybe' }, 'SEED_DEMO must be true or false (got "maybe")'],
    [{ MAX_WRITE_POINTS: '0' }, 'MAX_WRITE_POINTS must be an integer from 1 to 10000000 (got "0")'],
  ])('rejects %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

it('lists every setting with its default in the README', () => {
  const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
  for (const setting of SETTINGS) {
    const shown = setting.default === '' ? '(none)' : `\`${setting.default}\``;
    expect(readme, setting.env).toContain(`| \`${setting.env}\` | ${shown} |`);
  }
});

it('stops start-up with a message that names the bad setting', () => {
  const main = fileURLToPath(new URL('./main.ts', import.meta.url));
  const result = spawnSync(process.execPath, ['--import', 'tsx', main], { env: { ...process.env, PORT: 'eighty' }, encoding: 'utf8', timeout: 30_000 });
  expect(result.status).toBe(2);
  expect(result.stderr).toContain('kairograph: invalid configuration: PORT must be an integer from 0 to 65535 (got "eighty")');
});
