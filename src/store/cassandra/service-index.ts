// KairosDB's service_index through the metadata API's statements (statements.ts): values KairosDB 1.3 wrote read
// back here, and the reverse. Write times are the store's milliseconds, as KairosDB's own (its client's timestamp
// generator is System.currentTimeMillis), so a delete here shadows a value KairosDB wrote and the other way round.
import type cassandra from 'cassandra-driver';
import { claimText, mayTake, readClaim } from '../claims.js';
import type { Claim, ServiceIndex, ServiceValue } from '../../model/service-index.js';
import { compareText, successorOf } from '../text-order.js';
import type { StoreExecutor, Statements } from './statements.js';
import type { MutationClock } from './timestamps.js';

export class CassandraServiceIndex implements ServiceIndex {
  /** A partition key of (service, service key) takes 3 bytes per part beside them, within Cassandra's 65,535. */
  readonly maxKeyBytes = 65_529;

  constructor(
    private readonly exec: () => Promise<StoreExecutor>,
    private readonly st: Statements,
    private readonly clock: MutationClock,
  ) {}

  async serviceKeys(service: string): Promise<string[]> {
    const exec = await this.exec();
    const candidates: string[] = [];
    for (const row of await exec.all('service_index.select_partitions', this.st.selectServicePartitions, [])) {
      if (row.get('service') === service) candidates.push(row.get('service_key') as string);
    }
    // A partition whose keys were all deleted keeps its static mtime: one row with a null key, which lists nothing.
    const held = await Promise.all(
      candidates.map(async (serviceKey) => {
        const rows = await exec.all('service_index.select', this.st.selectServiceIndexAnyKey, [service, serviceKey]);
        return rows.some((row) => row.get('key') !== null);
      }),
    );
    return candidates.filter((_, i) => held[i]).sort(compareText);
  }

  async keys(service: string, serviceKey: string, prefix = ''): Promise<string[]> {
    const exec = await this.exec();
    const end = prefix === '' ? undefined : successorOf(prefix);
    const rows =
      prefix === ''
        ? await exec.all('service_index.select', this.st.selectServiceIndexKeys, [service, serviceKey])
        : end === undefined
          ? await exec.all('service_index.select', this.st.selectServiceIndexKeysFrom, [service, serviceKey, prefix])
          : await exec.all('service_index.select', this.st.selectServiceIndexKeysBetween, [
              service,
              serviceKey,
              prefix,
              end,
            ]);
    const keys: string[] = [];
    for (const row of rows) {
      // The static row of a partition whose keys were all deleted has none.
      const key = row.get('key') as string | null;
      if (key !== null) keys.push(key);
    }
    return keys;
  }

  async value(service: string, serviceKey: string, key: string): Promise<ServiceValue | undefined> {
    const exec = await this.exec();
    const [row] = await exec.all('service_index.select', this.st.selectServiceIndexValue, [service, serviceKey, key]);
    const value = row?.get('value') as string | null | undefined;
    if (row === undefined || value === null || value === undefined) return undefined;
    return { value, writtenMs: (row.get('written') as cassandra.types.Long).toNumber() };
  }

  async set(service: string, serviceKey: string, key: string, value: string): Promise<number> {
    const exec = await this.exec();
    const writtenMs = this.clock.next();
    await exec.mutate(
      'service_index.insert',
      this.st.insertServiceIndexValue,
      [service, serviceKey, key, value],
      writtenMs,
    );
    return writtenMs;
  }

  async delete(service: string, serviceKey: string, key: string): Promise<void> {
    const exec = await this.exec();
    // One partition, one mutation: the key goes and the partition's mtime moves together, as KairosDB's two statements.
    const queries = [
      { query: this.st.deleteServiceIndexValue, params: [service, serviceKey, key] },
      { query: this.st.touchServiceIndex, params: [service, serviceKey] },
    ];
    await exec.batch('service_index.delete', queries, this.clock.next());
  }

  async claim(
    service: string,
    serviceKey: string,
    key: string,
    owner: string,
    nowMs: number,
    untilMs: number,
  ): Promise<Claim> {
    const exec = await this.exec();
    const mine = claimText(owner, untilMs, false);
    let row = await exec.conditional('service_index.claim', this.st.insertClaim, [service, serviceKey, key, mine]);
    // Each failed swap means another owner changed the claim in between: look again at what it wrote, a few times.
    for (let attempt = 0; attempt < 4; attempt++) {
      if (row.get('[applied]') === true) return { granted: true, completed: false, owner, untilMs };
      const seen = row.get('value') as string | null;
      const found = readClaim(seen);
      if (!mayTake(found, owner, nowMs)) return found;
      row = await exec.conditional('service_index.claim', this.st.swapClaim, [mine, service, serviceKey, key, seen]);
    }
    return readClaim(row.get('value') as string | null);
  }

  async complete(service: string, serviceKey: string, key: string, owner: string, nowMs: number): Promise<boolean> {
    const exec = await this.exec();
    const [row] = await exec.all('service_index.select', this.st.selectServiceIndexValue, [service, serviceKey, key]);
    let seen = (row?.get('value') as string | null | undefined) ?? null;
    for (let attempt = 0; attempt < 4; attempt++) {
      const found = readClaim(seen);
      if (found.completed || found.owner !== owner) return false;
      const swapped = await exec.conditional('service_index.claim', this.st.swapClaim, [
        claimText(owner, nowMs, true),
        service,
        serviceKey,
        key,
        seen,
      ]);
      if (swapped.get('[applied]') === true) return true;
      // The plain read may have been stale (it is not serial); the failed swap shows the current value.
      seen = swapped.get('value') as string | null;
    }
    return false;
  }
}
