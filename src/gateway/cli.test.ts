/**
 * The `kairograph` command as users run it (bin/kairograph.js): help listing every setting with its default, the
 * version, hash-secret, and start-up failures as one line that names the setting to change.
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../../test/support/temp-dir.js';
import { SETTINGS, loadConfig } from './config.js';
import { Authenticator, loadAuthPolicy } from '../http/auth.js';
import { VERSION } from './cli.js';

const BIN = fileURLToPath(new URL('../../bin/kairograph.js', import.meta.url));

function kairograph(args: string[], env: Record<string, string> = {}, input?: string) {
  return spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, SEED_DEMO: 'false', ...env },
    encoding: 'utf8',
    timeout: 30_000,
    ...(input !== undefined ? { input } : {}),
  });
}

afterAll(removeTempDirs);

describe('kairograph', () => {
  it('--help lists every setting with its default, and starts nothing', () => {
    const result = kairograph(['--help']);
    expect(result.status).toBe(0);
    for (const setting of SETTINGS)
      expect(result.stdout, setting.env).toContain(
        `  ${setting.env} (default: ${setting.default === '' ? 'none' : setting.default})\n`,
      );
    expect(result.stdout).toContain('kairograph hash-secret');
  });

  it('--version prints the package version', () => {
    expect(kairograph(['--version']).stdout).toBe(`kairograph ${VERSION}\n`);
  });

  it('refuses an unknown argument with exit 2', () => {
    const result = kairograph(['--port', '80']);
    expect([result.status, result.stderr]).toEqual([
      2,
      'kairograph: unknown argument "--port"; see kairograph --help\n',
    ]);
  });

  it('hash-secret prints a hash that CREDENTIALS_FILE takes and that verifies the secret', async () => {
    const result = kairograph(['hash-secret'], {}, 'correct horse battery\n');
    expect(result.status).toBe(0);
    const file = join(tempDir(), 'credentials.json');
    writeFileSync(file, JSON.stringify({ users: [{ name: 'ci', hash: result.stdout.trim(), scopes: ['write'] }] }));
    const auth = new Authenticator(loadAuthPolicy(loadConfig({ CREDENTIALS_FILE: file })));
    const principal = await auth.authenticate(
      { authorization: `Basic ${Buffer.from('ci:correct horse battery').toString('base64')}` },
      'Basic',
    );
    expect(principal.name).toBe('ci');
  });

  it('hash-secret --generate makes a token and its digest, which CREDENTIALS_FILE takes and which finds the token', async () => {
    const result = kairograph(['hash-secret', '--generate']);
    const match = /^token: (kg_[\w-]{43})\nhash: {2}(\$sha256\$[A-Za-z0-9+/]{43})\n$/.exec(result.stdout);
    expect(match).not.toBeNull();
    const file = join(tempDir(), 'credentials.json');
    writeFileSync(file, JSON.stringify({ tokens: [{ name: 'ci', hash: match![2], scopes: ['write'] }] }));
    const auth = new Authenticator(loadAuthPolicy(loadConfig({ CREDENTIALS_FILE: file })));
    expect((await auth.authenticate({ authorization: `Bearer ${match![1]}` }, 'Bearer')).name).toBe('ci');
  });

  it('hash-secret --token gives the digest of a token read on standard input, and refuses a short one', () => {
    const token = 'kg_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';
    const result = kairograph(['hash-secret', '--token'], {}, `${token}\n`);
    expect([result.status, result.stdout]).toEqual([0, '$sha256$pjAi9eYI85WNWrGthJdADyY9gLoy/PRGHAIU/GMYO10\n']);
    const short = kairograph(['hash-secret', '--token'], {}, 'hunter2\n');
    expect([short.status, short.stderr]).toEqual([
      2,
      'kairograph: a token must have at least 32 characters (got 7): make one with `kairograph hash-secret --generate`\n',
    ]);
  });
});

describe('start-up failures', () => {
  it('names PORT when the port is in use', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      const result = kairograph([], { PORT: String(port), DATA_DIR: tempDir() });
      expect([result.status, result.stderr]).toEqual([
        1,
        `kairograph: cannot listen on 127.0.0.1:${port}: the port is in use; set PORT to a free port, or stop what listens there\n`,
      ]);
    } finally {
      busy.close();
    }
  });

  it('warns once, before anything else, that TRUSTED_CLIENT_TOKENS is deprecated and what to use instead', async () => {
    // A port in use ends the start right after the warning.
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const result = kairograph([], {
        PORT: String((busy.address() as { port: number }).port),
        DATA_DIR: tempDir(),
        TRUSTED_CLIENT_TOKENS: 'grafana,ci',
        LOG_FORMAT: 'json',
      });
      const lines = result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const warnings = lines.filter((line) => line.level === 40);
      expect(warnings.map((line) => [line.setting, line.msg])).toEqual([
        [
          'TRUSTED_CLIENT_TOKENS',
          'TRUSTED_CLIENT_TOKENS is deprecated: its 2 token(s) are kept in plain text and carry only the anonymous scopes; put them in CREDENTIALS_FILE as hashed tokens (`kairograph hash-secret`) with the scopes they need',
        ],
      ]);
      expect(lines[0]).toBe(warnings[0]);
    } finally {
      busy.close();
    }
  });

  it('names DATA_DIR when the embedded store cannot be made there', () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, '');
    const result = kairograph([], { PORT: '0', DATA_DIR: join(file, 'data') });
    expect([result.status, result.stderr]).toEqual([
      1,
      `kairograph: cannot open the embedded store in DATA_DIR=${file}/data: ENOTDIR: not a directory, mkdir '${file}/data'; set DATA_DIR to a directory this user can write\n`,
    ]);
  });
});
