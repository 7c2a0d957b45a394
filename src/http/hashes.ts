/**
 * How credentials are stored: a user's password as a scrypt hash in PHC form (`$scrypt$ln=14,r=8,p=1$<salt>$<hash>`,
 * base64 without padding), an API token as its SHA-256 digest (`$sha256$<digest>`); and how they are checked.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

export interface ParsedHash {
  readonly ln: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

const HASH_FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{16,})\$([A-Za-z0-9+/]{32,})$/;

/**
 * scrypt's own recommended cost for interactive logins (2^14, 8, 1): 16 MiB a hash (128·N·r bytes), on libuv's pool;
 * what it costs a gateway is in bench/RESULTS.md (`npm run bench:auth`).
 */
const DEFAULT_LN = 14;

/** A hash of `secret` for CREDENTIALS_FILE. */
export async function hashSecret(secret: string, ln = DEFAULT_LN): Promise<string> {
  const salt = randomBytes(16);
  const params = { ln, r: 8, p: 1 };
  const hash = await derive(secret, { ...params, salt, hash: Buffer.alloc(32) });
  return `$scrypt$ln=${ln},r=${params.r},p=${params.p}$${b64(salt)}$${b64(hash)}`;
}

/** A fresh random API token (32 bytes, URL-safe). */
export function newToken(): string {
  return `kg_${randomBytes(32).toString('base64url')}`;
}

/** The fewest characters a token stored as a digest may have: less could be guessed offline from its digest. */
export const MIN_TOKEN_LENGTH = 32;

/**
 * A token's entry for CREDENTIALS_FILE, `$sha256$<digest>`: a generated token has 256 random bits, so a fast digest
 * is as safe to store as a slow hash, and it lets an unknown token be refused after one lookup.
 */
export function tokenHash(token: string): string {
  return `$sha256$${tokenDigest(token)}`;
}

export function tokenDigest(token: string): string {
  return b64(createHash('sha256').update(token, 'utf8').digest());
}

export const TOKEN_HASH_FORMAT = /^\$sha256\$([A-Za-z0-9+/]{43})$/;

export function parseHash(text: string): ParsedHash | undefined {
  const match = HASH_FORMAT.exec(text);
  if (match === null) return undefined;
  const [ln, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (ln < 10 || ln > 17 || r < 1 || p < 1) return undefined;
  return { ln, r, p, salt: Buffer.from(match[4]!, 'base64'), hash: Buffer.from(match[5]!, 'base64') };
}

export async function verifyHash(secret: string, stored: ParsedHash): Promise<boolean> {
  const derived = await derive(secret, stored);
  return timingSafeEqual(derived, stored.hash);
}

function derive(secret: string, { ln, r, p, salt, hash }: ParsedHash): Promise<Buffer> {
  const N = 2 ** ln;
  return new Promise((resolve, reject) =>
    scrypt(secret.normalize('NFC'), salt, hash.length, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** Verified when a user name is unknown: the same cost as a real user's hash. */
export const DECOY: ParsedHash = { ln: DEFAULT_LN, r: 8, p: 1, salt: Buffer.alloc(16), hash: Buffer.alloc(32) };

function b64(bytes: Buffer): string {
  return bytes.toString('base64').replace(/=+$/, '');
}

/** The cache's key for a credential: never the credential itself, so a heap dump does not hold secrets by the thousand. */
export function credentialDigest(kind: string, secret: string): string {
  return createHash('sha256').update(kind).update('\u0000').update(secret).digest('base64');
}
