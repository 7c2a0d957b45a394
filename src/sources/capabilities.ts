/**
 * What a source can do beyond finding, reading, writing and deleting series: each layout declares its capabilities in
 * one object, and a caller asks for one by name and gets its interface or nothing. The Source interface stays the same
 * whatever a new layout brings, wrappers pass the object on whole, and the Source conformance suite reads it to know
 * which cases a layout must pass.
 */
import type { SchemaRepairStatus } from '../model/health.js';

export interface Capabilities {
  /** KairosDB's service_index(the KairosDB layout): the metadata API's keys and values, roll-up tasks and claims. */
  readonly metadata?: Metadata;
  /** The source's own list of its series, kept by scanning its table or listed in its settings (Heroic, users' tables). */
  readonly catalogue?: CatalogueView;
  /** A schema its store creates and repairs on its own (KairosDB's keyspace on Cassandra). */
  readonly schemaRepair?: SchemaRepairView;
}

interface Metadata {
  readonly index: ServiceIndex;
  /** Services the metadata API serves for reading only: the store's own records (its tag index markers). */
  readonly readOnlyServices: readonly string[];
}

interface CatalogueView {
  status(): CatalogueStatus;
}

interface SchemaRepairView {
  status(): SchemaRepairStatus;
}

/**
 * KairosDB's `service_index` as a source offers it (the KairosDB store's ServiceIndex is one): text values under
 * (service, service key, key), sorted by key, and claims on keys that hold across every gateway on the store.
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
   * Claims a key for `owner` until `untilMs`, atomically across every process on the store: granted when nobody holds
   * it, when its holder's claim expired, or when `owner` holds it already (then extended); never once it is completed.
   */
  claim(
    service: string,
    serviceKey: string,
    key: string,
    owner: string,
    nowMs: number,
    untilMs: number,
  ): Promise<Claim>;
  /** Marks a claimed key completed, for good, when `owner` still holds it; false when its claim was lost. */
  complete(service: string, serviceKey: string, key: string, owner: string, nowMs: number): Promise<boolean>;
}

interface ServiceValue {
  readonly value: string;
  /** The write time, in epoch ms. */
  readonly writtenMs: number;
}

/** What a claim found: granted to the caller, held by another owner until a time, or completed. */
interface Claim {
  readonly granted: boolean;
  readonly completed: boolean;
  /** Who holds (or completed) it. */
  readonly owner: string;
  /** Until when the holder's claim lasts; when it was completed, for a completed key. */
  readonly untilMs: number;
}

/** What a catalogue (a source's own list of its series, kept by scanning its table) knows of itself. */
export interface CatalogueStatus {
  /** `scan` (kept by scanning the table) or `static` (listed in the source's settings). */
  readonly kind: 'scan' | 'static';
  /** Partitions (series × period) it knows now. */
  readonly partitions: number;
  /** Passes over the whole table ended since the catalogue was made. */
  readonly passes: number;
  /** When the last whole pass ended (epoch ms), or undefined before the first did. */
  readonly lastPassEndedMs: number | undefined;
  /** How far the pass under way has come, from 0 to 1. */
  readonly progress: number;
  /** Keys read by the pass under way. */
  readonly keysScanned: number;
  /** Keys of the last whole pass (of the first, while it runs) that decode in none of the layout's forms. */
  readonly undecodableKeys: number;
  /** Keys of that pass written in another schema of the layout (legacy keys in an ng source, or the other way round). */
  readonly otherSchemaKeys: number;
  /** Keys of that pass the catalogue cannot hold (a metric name longer than its keys take). */
  readonly uncataloguedKeys: number;
}
