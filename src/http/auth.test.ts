/**
 * The auth policy: what anonymous requests may do on each kind of HOST, CREDENTIALS_FILE's checks and wording, the
 * hash format, and credentials checked once.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../../test/support/temp-dir.js';
import { loadConfig } from '../gateway/config.js';
import { isLoopback } from './browser-policy.js';
import { Authenticator } from './auth.js';
import { hashSecret, parseHash, tokenHash } from './hashes.js';
import { loadAuthPolicy } from './auth-policy.js';

afterAll(removeTempDirs);

function credentialsFile(content: unknown): string {
  const file = join(tempDir(), 'credentials.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const scopesOf = (env: Record<string, string>) => [...loadAuthPolicy(loadConfig(env)).anonymous.scopes];

describe('anonymous scopes', () => {
  it('are every scope on loopback without credentials, as the two-command start has always been', () => {
    expect(scopesOf({})).toEqual(['read', 'write', 'delete', 'admin']);
    expect(scopesOf({ HOST: 'localhost' })).toEqual(['read', 'write', 'delete', 'admin']);
    expect(scopesOf({ HOST: '::1' })).toEqual(['read', 'write', 'delete', 'admin']);
  });

  it('are none once credentials are configured, wherever the gateway listens', async () => {
    const file = credentialsFile({ tokens: [{ name: 'ci', hash: await hashSecret('t', 10), scopes: ['read'] }] });
    expect(scopesOf({ CREDENTIALS_FILE: file })).toEqual([]);
    expect(scopesOf({ CREDENTIALS_FILE: file, HOST: '0.0.0.0' })).toEqual([]);
  });

  it('are what ANONYMOUS_SCOPES says, on any address', () => {
    expect(scopesOf({ HOST: '0.0.0.0', ANONYMOUS_SCOPES: 'read' })).toEqual(['read']);
    expect(scopesOf({ HOST: '0.0.0.0', ANONYMOUS_SCOPES: 'none' })).toEqual([]);
    expect(scopesOf({ ANONYMOUS_SCOPES: 'read,write' })).toEqual(['read', 'write']);
  });

  it('stop start-up on an address other machines reach, without credentials or a choice', () => {
    expect(() => scopesOf({ HOST: '0.0.0.0' })).toThrow(
      'HOST=0.0.0.0 accepts connections from other machines and no credentials are configured: set CREDENTIALS_FILE (hashes from `kairograph hash-secret`), or ANONYMOUS_SCOPES to what anyone who reaches the port may do (none, or e.g. read)',
    );
  });

  it('tell loopback addresses from others', () => {
    expect(['127.0.0.1', '127.3.2.1', 'localhost', '::1', '[::1]'].map(isLoopback)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['0.0.0.0', '::', '10.0.0.1', 'example.com', '128.0.0.1'].map(isLoopback)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('CREDENTIALS_FILE', () => {
  const load = (content: unknown, sources?: string[]) => {
    const file = credentialsFile(content);
    return () => loadAuthPolicy(loadConfig({ CREDENTIALS_FILE: file }), sources);
  };

  it.each([
    ['{', 'is not JSON'],
    [[], 'must be a JSON object with "tokens" and/or "users"'],
    [{ keys: [] }, 'has an unknown key "keys" (keys: tokens, users)'],
    [{ tokens: {} }, ': tokens must be a list'],
    [
      { tokens: [{ name: 'ci', hash: 'hunter2', scopes: ['read'] }] },
      ': tokens[0].hash must be a hash made by `kairograph hash-secret` ($sha256$... from `kairograph hash-secret --generate` or `--token`); secrets are never accepted in plain text',
    ],
    [
      { users: [{ name: 'ci', hash: 'hunter2', scopes: ['read'] }] },
      ': users[0].hash must be a hash made by `kairograph hash-secret` ($scrypt$ln=14,r=8,p=1$... from `kairograph hash-secret`); secrets are never accepted in plain text',
    ],
    [
      { users: [{ name: 'ci', hash: '$sha256$pjAi9eYI85WNWrGthJdADyY9gLoy/PRGHAIU/GMYO10', scopes: ['read'] }] },
      ": users[0].hash is a token's digest ($sha256$...): a password needs a scrypt hash from `kairograph hash-secret`",
    ],
    [
      { users: [{ name: 'a b', hash: 'x', scopes: ['read'] }] },
      ': users[0].name must be 1 to 64 letters, digits, ".", "_", "@" or "-" (got "a b")',
    ],
    [
      { users: [{ name: 'a', hash: 'x', scopes: ['read'], role: 'x' }] },
      ': users[0] has an unknown key "role" (keys: name, hash, scopes, sources)',
    ],
  ])('refuses %j', (content, message) => {
    expect(load(content)).toThrow(message);
  });

  it('never repeats a hash that may be a secret pasted by mistake', () => {
    expect(load({ tokens: [{ name: 'ci', hash: 'hunter2', scopes: ['read'] }] })).not.toThrow(/hunter2/);
  });

  it('checks scopes, names and sources', async () => {
    const hash = await hashSecret('s', 10);
    expect(load({ tokens: [{ name: 'ci', hash, scopes: ['root'] }] })).toThrow(
      ': tokens[0].scopes must be a non-empty list of read, write, delete, admin (got ["root"])',
    );
    expect(
      load({ tokens: [{ name: 'ci', hash, scopes: ['read'] }], users: [{ name: 'ci', hash, scopes: ['read'] }] }),
    ).toThrow(': users[0].name "ci" is given twice (token and user names share one list)');
    expect(load({ users: [{ name: 'g', hash, scopes: ['read'], sources: ['archive'] }] }, ['kairosdb'])).toThrow(
      ': users[0].sources names "archive", which is not a configured source (kairosdb)',
    );
  });
});

describe('hashes and checks', () => {
  it('are PHC strings that verify only their secret, once per credential', async () => {
    const hash = await hashSecret('correct horse', 10);
    expect(hash).toMatch(/^\$scrypt\$ln=10,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(parseHash(hash)).toBeDefined();
    expect(
      parseHash('$scrypt$ln=30,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
    ).toBeUndefined();
    const file = credentialsFile({ users: [{ name: 'grafana', hash, scopes: ['read'] }] });
    const auth = new Authenticator(loadAuthPolicy(loadConfig({ CREDENTIALS_FILE: file })));
    const basic = (password: string) => ({
      authorization: `Basic ${Buffer.from(`grafana:${password}`).toString('base64')}`,
    });
    const principal = await auth.authenticate(basic('correct horse'), 'Basic');
    expect(principal).toEqual({ name: 'grafana', authenticated: true, scopes: new Set(['read']) });
    // Remembered: the same object, without another scrypt.
    expect(await auth.authenticate(basic('correct horse'), 'Basic')).toBe(principal);
    await expect(auth.authenticate(basic('wrong'), 'Basic')).rejects.toThrow('wrong user name or password');
    await expect(auth.authenticate({ authorization: 'Digest abc' }, 'Basic')).rejects.toThrow(
      'the Authorization header must be "Bearer <token>" or "Basic <base64 of user:password>"',
    );
    await expect(auth.authenticate({ authorization: 'Bearer a', token: 'b' }, 'Bearer')).rejects.toThrow(
      'send one credential: an Authorization header or x-kairograph-token, not both',
    );
  });
});

describe('tokens', () => {
  const TOKEN = 'kg_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';
  const authWith = (content: unknown) =>
    new Authenticator(loadAuthPolicy(loadConfig({ CREDENTIALS_FILE: credentialsFile(content) })));

  it('are stored as SHA-256 digests and found by theirs, as Bearer or x-kairograph-token', async () => {
    expect(tokenHash(TOKEN)).toBe('$sha256$pjAi9eYI85WNWrGthJdADyY9gLoy/PRGHAIU/GMYO10');
    const auth = authWith({ tokens: [{ name: 'ci', hash: tokenHash(TOKEN), scopes: ['read', 'write'] }] });
    const expected = { name: 'ci', authenticated: true, scopes: new Set(['read', 'write']) };
    expect(await auth.authenticate({ authorization: `Bearer ${TOKEN}` }, 'Bearer')).toEqual(expected);
    expect(await auth.authenticate({ token: TOKEN }, 'Bearer')).toEqual(expected);
    await expect(auth.authenticate({ token: `${TOKEN}x` }, 'Bearer')).rejects.toThrow('the token is not valid');
  });

  it('with scrypt hashes (files made before digests) still work, and an unknown token is tried against each', async () => {
    const auth = authWith({
      tokens: [
        { name: 'old', hash: await hashSecret('old-token', 10), scopes: ['read'] },
        { name: 'new', hash: tokenHash(TOKEN), scopes: ['write'] },
      ],
    });
    expect(auth.policy.legacyTokens.map((token) => token.principal.name)).toEqual(['old']);
    expect((await auth.authenticate({ token: 'old-token' }, 'Bearer')).name).toBe('old');
    expect((await auth.authenticate({ token: TOKEN }, 'Bearer')).name).toBe('new');
    await expect(auth.authenticate({ token: 'nobody' }, 'Bearer')).rejects.toThrow('the token is not valid');
  });
});

describe('failed passwords', () => {
  const basic = (password: string) => ({
    authorization: `Basic ${Buffer.from(`grafana:${password}`).toString('base64')}`,
  });

  it('are never remembered, so they cannot push verified credentials out; a client past five waits, and others do not', async () => {
    const hash = await hashSecret('correct horse', 10);
    const auth = new Authenticator(
      loadAuthPolicy(
        loadConfig({ CREDENTIALS_FILE: credentialsFile({ users: [{ name: 'grafana', hash, scopes: ['read'] }] }) }),
      ),
    );
    const principal = await auth.authenticate(basic('correct horse'), 'Basic', '10.0.0.1');
    for (let i = 0; i < 5; i++)
      await expect(auth.authenticate(basic(`guess ${i}`), 'Basic', '10.0.0.2')).rejects.toThrow(
        'wrong user name or password',
      );
    // The sixth failure starts the wait: the next check from that address is refused before any scrypt.
    await expect(auth.authenticate(basic('guess 5'), 'Basic', '10.0.0.2')).rejects.toThrow(
      'wrong user name or password',
    );
    const refused = await auth
      .authenticate(basic('correct horse?'), 'Basic', '10.0.0.2')
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      message: 'too many failed sign-ins from this address (6); retry in 1 s',
    });
    expect((refused as { headers: unknown }).headers).toEqual({
      'retry-after': '1',
      'ratelimit-policy': '"credentials";q=5',
      ratelimit: '"credentials";r=0;t=1',
    });
    // A verified password is remembered whatever the address, and another address is not held back.
    expect(await auth.authenticate(basic('correct horse'), 'Basic', '10.0.0.2')).toBe(principal);
    await expect(auth.authenticate(basic('wrong'), 'Basic', '10.0.0.3')).rejects.toThrow('wrong user name or password');
  });

  it('share one scrypt while the same credential is checked by requests in parallel', async () => {
    const hash = await hashSecret('correct horse', 10);
    const auth = new Authenticator(
      loadAuthPolicy(
        loadConfig({ CREDENTIALS_FILE: credentialsFile({ users: [{ name: 'grafana', hash, scopes: ['read'] }] }) }),
      ),
    );
    const all = await Promise.all(
      Array.from({ length: 20 }, () => auth.authenticate(basic('correct horse'), 'Basic', '10.0.0.1')),
    );
    expect(new Set(all).size).toBe(1);
  });
});
