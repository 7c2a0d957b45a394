// KairosDB's service_index in the embedded store: one LMDB table, a value and its write time under each key.
import type { Database } from 'lmdb';
import { claimText, mayTake, readClaim } from '../claims.js';
import type { Claim, ServiceIndex, ServiceValue } from '../../model/service-index.js';
import { compareText } from '../text-order.js';
import { decodeServiceIndexKey, serviceIndexKey, serviceIndexPrefix } from './keys.js';

const utf8 = new TextDecoder();

export class EmbeddedServiceIndex implements ServiceIndex {
  /** LMDB's key size, less the two u16 lengths of the key layout. */
  readonly maxKeyBytes: number;

  constructor(
    maxKeySize: number,
    private readonly table: Database<Buffer, Buffer>,
    /** Runs `work` as one transaction and resolves once it is durable. */
    private readonly transaction: (work: () => void) => Promise<void>,
    private readonly now: () => number,
  ) {
    this.maxKeyBytes = maxKeySize - 4;
  }

  async serviceKeys(service: string): Promise<string[]> {
    const prefix = serviceIndexPrefix(service);
    const serviceKeys = new Set<string>();
    for (const key of this.table.getKeys(prefixRange(prefix)))
      serviceKeys.add(decodeServiceIndexKey(key, prefix.length).serviceKey);
    return [...serviceKeys].sort(compareText);
  }

  async keys(service: string, serviceKey: string, prefix = ''): Promise<string[]> {
    const partition = serviceIndexPrefix(service, serviceKey);
    const keys: string[] = [];
    for (const key of this.table.getKeys({
      start: serviceIndexKey(service, serviceKey, prefix),
      end: prefixRange(partition).end,
    })) {
      const name = utf8.decode(key.subarray(partition.length));
      if (!name.startsWith(prefix)) break;
      keys.push(name);
    }
    return keys;
  }

  async value(service: string, serviceKey: string, key: string): Promise<ServiceValue | undefined> {
    const stored = this.table.get(serviceIndexKey(service, serviceKey, key));
    if (stored === undefined) return undefined;
    return { writtenMs: stored.readDoubleBE(0), value: utf8.decode(stored.subarray(8)) };
  }

  async set(service: string, serviceKey: string, key: string, value: string): Promise<number> {
    const text = Buffer.from(value, 'utf8');
    const stored = Buffer.allocUnsafe(8 + text.length);
    const writtenMs = this.now();
    stored.writeDoubleBE(writtenMs, 0);
    stored.set(text, 8);
    const at = serviceIndexKey(service, serviceKey, key);
    await this.transaction(() => void this.table.putSync(at, stored));
    return writtenMs;
  }

  async delete(service: string, serviceKey: string, key: string): Promise<void> {
    const at = serviceIndexKey(service, serviceKey, key);
    await this.transaction(() => void this.table.removeSync(at));
  }

  /** Read and written in one write transaction: LMDB has one writer at a time, and one process owns the file. */
  async claim(
    service: string,
    serviceKey: string,
    key: string,
    owner: string,
    nowMs: number,
    untilMs: number,
  ): Promise<Claim> {
    const at = serviceIndexKey(service, serviceKey, key);
    let result: Claim = { granted: true, completed: false, owner, untilMs };
    await this.transaction(() => {
      const stored = this.table.get(at);
      const found = stored === undefined ? undefined : readClaim(utf8.decode(stored.subarray(8)));
      if (found !== undefined && !mayTake(found, owner, nowMs)) {
        result = found;
        return;
      }
      this.table.putSync(at, this.stored(claimText(owner, untilMs, false)));
    });
    return result;
  }

  async complete(service: string, serviceKey: string, key: string, owner: string, nowMs: number): Promise<boolean> {
    const at = serviceIndexKey(service, serviceKey, key);
    let done = false;
    await this.transaction(() => {
      const stored = this.table.get(at);
      const found = stored === undefined ? undefined : readClaim(utf8.decode(stored.subarray(8)));
      if (found === undefined || found.completed || found.owner !== owner) return;
      this.table.putSync(at, this.stored(claimText(owner, nowMs, true)));
      done = true;
    });
    return done;
  }

  /** A value as the table keeps it: its write time, then its text. */
  private stored(value: string): Buffer {
    const text = Buffer.from(value, 'utf8');
    const stored = Buffer.allocUnsafe(8 + text.length);
    stored.writeDoubleBE(this.now(), 0);
    stored.set(text, 8);
    return stored;
  }
}

/**
 * Every key that starts with `prefix`. What follows a prefix is UTF-8 (never a 0xff byte) or a u16 length, which
 * stays below 0xff00 since LMDB keys are under 2 kB.
 */
function prefixRange(prefix: Buffer): { start: Buffer; end: Buffer } {
  return { start: prefix, end: Buffer.concat([prefix, Buffer.from([0xff, 0xff])]) };
}
