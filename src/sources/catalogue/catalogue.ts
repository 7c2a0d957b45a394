/**
 * What a layout asks of the list of its partitions, whichever way the list is kept (scanned from the table, or given in
 * the source's settings): the partitions of a group over a range of periods, and what writes and deletes teach it. Apart
 * from both catalogues, so that a layout depends on the contract and only its opening picks one.
 */
import type { Tags } from '../../model/series.js';
import type { CatalogueStatus } from '../capabilities.js';

/** One partition of a table: a series' tags in the period starting at `base`, and how to read it (`stored`). */
export interface CataloguedPartition<S> {
  readonly group: string;
  readonly base: number;
  readonly tags: Tags;
  /** What the layout reads the partition by, as the table holds it (kept in the file: plain data, Buffers, arrays). */
  readonly stored: S;
}

/** Why a key was skipped: counted apart in the catalogue's status. */
export type SkippedKey = 'undecodable' | 'otherSchema' | 'uncatalogued';

/** A key as the layout decodes it: a partition, or why it cannot be one. */
export type DecodedPartition<S> = CataloguedPartition<S> | { readonly skip: SkippedKey; readonly why: string };

export interface Catalogue<S> {
  /** Groups (Heroic's metric names), sorted, starting with `prefix`. */
  groups(prefix: string, limit?: number): string[];
  /** The partitions of `group` with fromBase <= base <= toBase, by base. */
  partitions(group: string, fromBase: number, toBase: number): CataloguedPartition<S>[];
  /** Partitions just written through the gateway: known at once, before any scan comes by. */
  learn(partitions: readonly CataloguedPartition<S>[]): void;
  /** A partition deleted whole through the gateway. */
  forget(partition: CataloguedPartition<S>): void;
  forgetGroup(group: string): void;
  status(): CatalogueStatus;
  close(): Promise<void>;
}
