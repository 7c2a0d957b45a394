/**
 * What the embedded store notes of the partitions it writes, so the next write of one skips work it would repeat: where
 * its last block ends (data-points.ts), and which expiry a durable write gave its row_keys and tag index entries.
 * Deletes and failed writes forget every note, and a write that began before one of them takes none.
 */
import type { PartitionTail } from './data-points.js';
import type { HeadPartition } from './head.js';
import { partitionId } from './keys.js';

/** A partition's notes: numbers and two references, so a million of them take a few hundred bytes each with their keys. */
export class KnownPartition implements PartitionTail {
  /** Its head (head.ts), once a write found it; looked up again once the head has let it go. */
  head: HeadPartition | undefined = undefined;
  tailSize = 0;
  tailFirstColumn = 0;
  tailLastColumn = 0;
  tailCells = 0;
  /** The expiry its row_keys and tag index entries have once a write of them is durable; undefined until then. */
  indexExpiry: number | undefined = undefined;

  /** `id`: the row key bytes as latin1, the key of its notes and of its head. */
  constructor(readonly id: string) {}
}

/** An index expiry a write put, noted once the write is durable. */
export interface IndexNote {
  readonly known: KnownPartition;
  readonly expiry: number;
}

/**
 * Partitions noted at most. A Prometheus server sends each of its active series every scrape interval, often hundreds
 * of thousands of them, and a series forgotten before it comes back costs a search for its last block and reads of
 * its index rows again.
 */
const MAX_KNOWN_PARTITIONS = 1_000_000;

export class PartitionNotes {
  /** By row key bytes (latin1). */
  private readonly known = new Map<string, KnownPartition>();
  /** Counts what forgot the notes: a write that began in another generation takes none. */
  private forgotten = 0;
  /** Once full: partitions not noted, less those found, since it filled. */
  private missedWhileFull = 0;

  constructor(private readonly capacity = MAX_KNOWN_PARTITIONS) {}

  /**
   * The notes of the partition with these row key bytes, new and empty if there are none. A full table notes no more
   * partitions but keeps finding those it holds: a sender of more series than it holds, sending them in turn, still
   * finds that many each round, where starting again from none would find none. Once the partitions it does not hold
   * outnumber those it finds by a whole table (series that ended, replaced by new ones), it starts again from none.
   */
  of(keyBytes: Uint8Array): KnownPartition {
    const id = partitionId(keyBytes);
    const known = this.known.get(id);
    if (this.known.size < this.capacity) {
      if (known !== undefined) return known;
      const added = new KnownPartition(id);
      this.known.set(id, added);
      return added;
    }
    if (known !== undefined) {
      if (this.missedWhileFull > 0) this.missedWhileFull--;
      return known;
    }
    if (++this.missedWhileFull >= this.capacity) this.clear();
    return new KnownPartition(id);
  }

  /** What a write notes when it begins, to hand to `indexed` once durable. */
  get generation(): number {
    return this.forgotten;
  }

  /** The index expiries a write put, now durable, unless a delete or a failure since the write began forgot the notes. */
  indexed(generation: number, notes: readonly IndexNote[]): void {
    if (generation !== this.forgotten) return;
    for (const { known, expiry } of notes) known.indexExpiry = expiry;
  }

  /** Runs `work`, forgetting every note if it throws. */
  forgetIfThrows(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.forget();
      throw error;
    }
  }

  forget(): void {
    this.clear();
    this.forgotten++;
  }

  private clear(): void {
    this.known.clear();
    this.missedWhileFull = 0;
  }
}

/** Whether an index row expiring at `stored` (0 = never; undefined = not known) lives at least until `expiry`. */
export function covers(stored: number | undefined, expiry: number): boolean {
  return stored === 0 || (stored !== undefined && expiry !== 0 && stored >= expiry);
}
