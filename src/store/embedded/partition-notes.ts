/**
 * What the embedded store holds of the partitions it writes: notes, so the next write of one skips work it would repeat
 * (where its last block ends, data-points.ts, and which expiry a durable write gave its row_keys and tag index
 * entries), and its head (head.ts), the newest cells not yet in data_points. Deletes and failed writes forget every
 * note, and a write that began before one of them takes none; a head is state, not a note, and is never forgotten.
 */
import type { PartitionTail } from './data-points.js';
import type { PartitionSlot } from '../partition-writes.js';
import { partitionId } from './keys.js';

/**
 * A partition's notes and its head, in one object, found by one lookup: a sender of hundreds of thousands of series
 * holds one of these for each, so it holds numbers and one buffer, and derives the rest from `id`.
 */
export class KnownPartition implements PartitionTail {
  tailSize = 0;
  tailFirstColumn = 0;
  tailLastColumn = 0;
  tailCells = 0;
  /** The expiry its row_keys and tag index entries have once a write of them is durable; undefined until then. */
  indexExpiry: number | undefined = undefined;
  /**
   * Its head's cells, encoded as a block in the first `size` bytes (head.ts): appends write after them in place, so a
   * view of the bytes a scan took stays as it was. Anything else puts new bytes here.
   */
  bytes: Buffer | undefined = undefined;
  size = 0;
  /** The head's last column (-1 when it has no cells) and its number of cells. */
  lastColumn = -1;
  cells = 0;
  /** The log epoch that named it, and the id it has there (head-log.ts); -1 = not named in this epoch. */
  logEpoch = -1;
  logId = 0;

  /** The count of the notes' clears when they held it last (PartitionNotes.clears); -1 = never held. */
  noted = -1;

  /** `id`: the row key bytes as latin1, the key of its notes. */
  constructor(readonly id: string) {}

  /** The head's cells as a block; undefined when there are none. */
  get block(): Uint8Array | undefined {
    return this.size === 0 ? undefined : this.bytes!.subarray(0, this.size);
  }

  /** The row key bytes, from `id`: needed when it is flushed or first logged, not by every write. */
  get keyBytes(): Buffer {
    return Buffer.from(this.id, 'latin1');
  }

  /** Forgets the notes, keeping the head. */
  forgetNotes(): void {
    this.tailSize = 0;
    this.tailFirstColumn = 0;
    this.tailLastColumn = 0;
    this.tailCells = 0;
    this.indexExpiry = undefined;
  }
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
  /** By row key bytes (latin1); it holds every partition with cells in the head, whatever its capacity. */
  private readonly known = new Map<string, KnownPartition>();
  /** The partitions with cells in the head, which are held while they have them (head.ts tells). */
  private readonly headed = new Set<KnownPartition>();
  /** Counts what forgot the notes: a write that began in another generation takes none. */
  private forgotten = 0;
  /** Counts the clears: a partition held since the last is in `known` (KnownPartition.noted). */
  private clears = 0;
  /** Once full: partitions not noted, less those found, since it filled. */
  private missedWhileFull = 0;

  constructor(private readonly capacity = MAX_KNOWN_PARTITIONS) {}

  /**
   * The notes of the partition with these row key bytes, new and empty if there are none. A full table notes no more
   * partitions but keeps finding those it holds: a sender of more series than it holds, sending them in turn, still
   * finds that many each round, where starting again from none would find none. Once the partitions it does not hold
   * outnumber those it finds by a whole table (series that ended, replaced by new ones), it starts again from none,
   * but for the partitions with cells in the head. A partition it does not hold is held once it has cells in the head.
   */
  of(keyBytes: Uint8Array, slot?: PartitionSlot): KnownPartition {
    // What the slot kept holds while the notes have not been cleared since they held it: only clear() drops partitions.
    const kept = slot?.owner === this ? (slot.value as KnownPartition) : undefined;
    const id = kept?.noted === this.clears ? kept.id : partitionId(keyBytes);
    const known = kept?.noted === this.clears ? kept : this.known.get(id);
    if (this.known.size < this.capacity) return this.kept(known ?? this.add(new KnownPartition(id)), slot);
    if (known !== undefined) {
      if (this.missedWhileFull > 0) this.missedWhileFull--;
      return this.kept(known, slot);
    }
    if (++this.missedWhileFull >= this.capacity) this.clear();
    return new KnownPartition(id);
  }

  /** The partition with these row key bytes (latin1), if it is held. */
  find(id: string): KnownPartition | undefined {
    return this.known.get(id);
  }

  /** Holds the partition while it has cells in the head: scans, deletes and flushes find it by its id. */
  hold(partition: KnownPartition): void {
    this.headed.add(partition);
    if (partition.noted !== this.clears) this.add(partition);
  }

  /** Lets go of a partition whose head has no cells left; it stays held as a note while there is room. */
  release(partition: KnownPartition): void {
    this.headed.delete(partition);
  }

  /** The partitions with cells in the head. */
  withCells(): KnownPartition[] {
    return [...this.headed];
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

  /** Drops every partition but those with cells in the head, whose notes it forgets. */
  private clear(): void {
    this.known.clear();
    this.clears++;
    this.missedWhileFull = 0;
    for (const partition of this.headed) {
      partition.forgetNotes();
      this.add(partition);
    }
  }

  private add(partition: KnownPartition): KnownPartition {
    partition.noted = this.clears;
    this.known.set(partition.id, partition);
    return partition;
  }

  /** `known`, held: kept in the slot for the next write of its partition. */
  private kept(known: KnownPartition, slot: PartitionSlot | undefined): KnownPartition {
    if (slot !== undefined) {
      slot.owner = this;
      slot.value = known;
    }
    return known;
  }
}

/** Whether an index row expiring at `stored` (0 = never; undefined = not known) lives at least until `expiry`. */
export function covers(stored: number | undefined, expiry: number): boolean {
  return stored === 0 || (stored !== undefined && expiry !== 0 && stored >= expiry);
}
