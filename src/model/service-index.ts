/**
 * KairosDB's `service_index` table: text values under (service, service key, key), partitioned by (service, service
 * key) and sorted by key. Stores that keep the table implement it, sources offer it as their metadata, the metadata
 * API reads and writes it, and KairosDB keeps its roll-up tasks there.
 */
export interface ServiceIndex {
  /** The UTF-8 bytes a service, service key and key may take together (the store's key size). */
  readonly maxKeyBytes: number;
  /** The service keys of `service` that hold at least one key, sorted. */
  serviceKeys(service: string): Promise<string[]>;
  /** The keys of one service key, sorted, those starting with `prefix` when given. */
  keys(service: string, serviceKey: string, prefix?: string): Promise<string[]>;
  /** A key's value and when it was written (ms), or undefined when there is none. */
  value(service: string, serviceKey: string, key: string): Promise<ServiceValue | undefined>;
  /** Sets a key's value; resolves with its write time (ms) once it is durable. */
  set(service: string, serviceKey: string, key: string, value: string): Promise<number>;
  /** Removes a key (nothing happens when there is none); resolves once it is durable. */
  delete(service: string, serviceKey: string, key: string): Promise<void>;
  /**
   * Claims a key for `owner` until `untilMs`, atomically across every process on the store (Cassandra: lightweight
   * transactions; embedded: one LMDB write transaction). Granted when nobody holds it, when its holder's claim expired
   * (`untilMs` before `nowMs`), or when `owner` holds it already (the claim is then extended); never once the key is
   * completed. A claim's key must only ever be written by `claim` and `complete`, never by `set` or `delete`.
   */
  claim(
    service: string,
    serviceKey: string,
    key: string,
    owner: string,
    nowMs: number,
    untilMs: number,
  ): Promise<Claim>;
  /**
   * Marks a claimed key completed, for good, when `owner` still holds it; false when its claim was lost (it expired
   * and another owner took it, or it was completed already).
   */
  complete(service: string, serviceKey: string, key: string, owner: string, nowMs: number): Promise<boolean>;
}

/** What a claim found: granted to the caller, held by another owner until a time, or completed. */
export interface Claim {
  readonly granted: boolean;
  readonly completed: boolean;
  /** Who holds (or completed) it. */
  readonly owner: string;
  /** Until when the holder's claim lasts; when it was completed, for a completed key. */
  readonly untilMs: number;
}

export interface ServiceValue {
  readonly value: string;
  /** The write time, in epoch ms. */
  readonly writtenMs: number;
}
