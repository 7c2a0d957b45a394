/**
 * The real process: on an address other machines reach it refuses to start without credentials, in one line that
 * names the settings to change, and with credentials it serves them and nobody else.
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { hashSecret } from '../../src/http/hashes.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

afterAll(removeTempDirs);

it('refuses HOST=0.0.0.0 without credentials in one line, and exits 2', () => {
  const result = spawnSync(process.execPath, ['--import', 'tsx', MAIN], {
    env: {
      ...process.env,
      HOST: '0.0.0.0',
      PORT: '0',
      DATA_DIR: tempDir(),
      SEED_DEMO: 'false',
      CREDENTIALS_FILE: '',
      ANONYMOUS_SCOPES: '',
    },
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(result.status).toBe(2);
  expect(result.stderr).toBe(
    'kairograph: invalid configuration: HOST=0.0.0.0 accepts connections from other machines and no credentials are configured: set CREDENTIALS_FILE (hashes from `kairograph hash-secret`), or ANONYMOUS_SCOPES to what anyone who reaches the port may do (none, or e.g. read)\n',
  );
});

it('serves HOST=0.0.0.0 with credentials, to them only', async () => {
  const dir = tempDir();
  const file = join(dir, 'credentials.json');
  writeFileSync(
    file,
    JSON.stringify({ users: [{ name: 'collector', hash: await hashSecret('s3cret', 10), scopes: ['read', 'write'] }] }),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: {
      ...process.env,
      HOST: '0.0.0.0',
      PORT: '0',
      DATA_DIR: join(dir, 'data'),
      SEED_DEMO: 'false',
      CREDENTIALS_FILE: file,
      LOG_FORMAT: 'json',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    let url: string | undefined;
    for await (const line of createInterface({ input: child.stdout })) {
      const entry = JSON.parse(line) as { url?: string };
      if (entry.url !== undefined) {
        url = entry.url.replace('0.0.0.0', '127.0.0.1');
        break;
      }
    }
    expect(url).toBeDefined();
    const basic = `Basic ${Buffer.from('collector:s3cret').toString('base64')}`;
    expect((await fetch(`${url}/api/v1/metricnames`)).status).toBe(401);
    const write = await fetch(`${url}/api/v1/datapoints`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/json' },
      body: JSON.stringify([{ name: 'm', tags: { h: 'a' }, datapoints: [[1, 1]] }]),
    });
    expect(write.status).toBe(204);
    expect(await (await fetch(`${url}/api/v1/metricnames`, { headers: { authorization: basic } })).json()).toEqual({
      results: ['m'],
    });
  } finally {
    child.kill('SIGTERM');
  }
});
