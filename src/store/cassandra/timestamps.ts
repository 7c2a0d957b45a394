// Write timestamps in MILLISECONDS, KairosDB's convention for every insert and delete (reference §1): Cassandra
// resolves cells by write time, so a writer using the usual microseconds would shadow KairosDB's deletes forever.
import cassandra from 'cassandra-driver';

/** The driver's TimestampGenerator is a constructor the client checks with instanceof; its typings only have the interface. */
const TimestampGenerator = (
  cassandra.policies.timestampGeneration as unknown as { TimestampGenerator: new () => object }
).TimestampGenerator;

/**
 * What the driver sends with statements that carry no timestamp of their own: like KairosDB's generator,
 * System.currentTimeMillis(). The store's mutations all bind theirs from a MutationClock instead.
 */
export class MillisecondTimestampGenerator extends TimestampGenerator {
  next(): number {
    return Date.now();
  }
}

/**
 * One timestamp per write batch or delete, strictly increasing within the process: with millisecond write times a
 * delete and a write of the same cell in the same millisecond would otherwise tie, and Cassandra lets the tombstone
 * win. It runs ahead of the clock only while more than 1000 mutations a second arrive, and catches up after.
 */
export class MutationClock {
  private last = 0;

  constructor(private readonly now: () => number = Date.now) {}

  next(): number {
    const now = this.now();
    this.last = now > this.last ? now : this.last + 1;
    return this.last;
  }
}
