/** Millisecond write times: the driver's generator and the store's strictly increasing mutation clock. */
import cassandra from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { MillisecondTimestampGenerator, MutationClock } from './timestamps.js';

describe('MillisecondTimestampGenerator', () => {
  it('gives epoch milliseconds and is accepted by the driver as its timestamp generator', () => {
    const generator = new MillisecondTimestampGenerator();
    const before = Date.now();
    const ts = generator.next();
    expect(ts).toBeGreaterThanOrEqual(before);
    expect(ts).toBeLessThanOrEqual(Date.now());
    // The client checks `instanceof TimestampGenerator`; an object of the typings' interface shape alone is refused.
    const client = (timestampGeneration: object) => () =>
      new cassandra.Client({
        contactPoints: ['127.0.0.1'],
        localDataCenter: 'dc',
        policies: {
          timestampGeneration: timestampGeneration as cassandra.policies.timestampGeneration.TimestampGenerator,
        },
      });
    expect(client(generator)).not.toThrow();
    expect(client({ next: () => Date.now() })).toThrow(
      'Timestamp generation policy must be an instance of TimestampGenerator',
    );
  });
});

describe('MutationClock', () => {
  it('follows the clock and stays strictly increasing within one millisecond', () => {
    let now = 1_000;
    const clock = new MutationClock(() => now);
    expect([clock.next(), clock.next(), clock.next()]).toEqual([1_000, 1_001, 1_002]);
    now = 1_001;
    expect(clock.next()).toBe(1_003);
    now = 2_000;
    expect(clock.next()).toBe(2_000);
  });
});
