/**
 * What a source can do beyond finding, reading, writing and deleting series: each layout declares its capabilities in
 * one object, and a caller asks for one by name and gets its interface or nothing. The Source interface stays the same
 * whatever a new layout brings, wrappers pass the object on whole, and the Source conformance suite reads it to know
 * which cases a layout must pass.
 */
import type { SchemaRepairStatus } from '../model/health.js';
import type { ServiceIndex } from '../model/service-index.js';

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
