/**
 * What the embedded store notes of the partitions it writes, so the next write of one skips work it would repeat: where
 * its last block ends (data-points.ts), and which expiry a durable write gave its row_keys and tag index entries.
 * Deletes and failed writes forget every note, and a write that began before one of them takes none.
 */
import type { PartitionBlocks } from './data-points.js';
import { partitionPrefix } from './keys.js';

/** A partition's notes. */
export interface KnownPartition extends PartitionBlocks {
  /** The expiry its row_keys and tag index entries have once a write of them is durable; undefined until then. */
  indexExpiry: number | undefined;
}

/** An index expiry a write put, noted once the write is durable. */
export interface IndexNote {
  readonly known: KnownPartition;
  readonly expiry: number;
}

/** Partitions noted at most (about 200 bytes each); past this the notes start again from none. */
const MAX_KNOWN_PARTITIONS = 100_000;

export class PartitionNotes {
  /** By row key bytes (latin1). */
  private readonly known = new Map<string, KnownPartition>();
  /** Counts what forgot the notes: a write that began in another generation takes none. */
  private forgotten = 0;

  /** The notes of the partition with these row key bytes, new and empty if there are none. */
  of(keyBytes: Uint8Array): KnownPartition {
    const id = Buffer.from(keyBytes.buffer, keyBytes.byteOffset, keyBytes.length).toString('latin1');
    let known = this.known.get(id);
    if (known === undefined) {
      if (this.known.size >= MAX_KNOWN_PARTITIONS) this.known.clear();
      known = { prefix: partitionPrefix(keyBytes), tail: undefined, indexExpiry: undefined };
      this.known.set(id, known);
    }
    return known;
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
    this.known.clear();
    this.forgotten++;
  }
}

/** Whether an index row expiring at `stored` (0 = never; undefined = not known) lives at least until `expiry`. */
export function covers(stored: number | undefined, expiry: number): boolean {
  return stored === 0 || (stored !== undefined && expiry !== 0 && stored >= expiry);
}
