/**
 * Test helper process: runs a scenario of writes to the embedded store at argv[2], prints "acknowledged" once every
 * write resolved, then idles until the test kills it with SIGKILL, so the store is never closed nor its head flushed.
 *   blocks: two batches of 5,000 points, the second appended to the first's last block.
 *   head: small writes held in the head, a flush, a delete reaching into the head, a point the head could not hold
 *     written to the blocks with the cells before it, and an overwrite of one of those.
 */
import { EmbeddedStore } from './embedded-store.js';

const store = await EmbeddedStore.open({ path: process.argv[2]!, rowWidth: 10_000_000 });
const write = (tags: Record<string, string>, timestamps: number[], values = timestamps) =>
  store.write({ series: [{ metric: 'durable', tags, type: 'double', ttlSeconds: 0, timestamps, values }] });

if (process.argv[3] === 'head') {
  // h=a: [1, 2, 3] flushed, then 4 in the head, then a delete of [3, 5) and 5 after it: [1, 2, 5].
  await write({ h: 'a' }, [1, 2, 3]);
  await store.flush();
  await write({ h: 'a' }, [4]);
  const [a] = await store.rowKeys('durable', 0);
  await store.deleteRange(a!, 3, 4);
  await write({ h: 'a' }, [5]);
  // h=b: 10 and 20 in the head, logged; 300 points more than the head holds take them to the blocks; 20 is then
  // overwritten in the blocks. A replay of the older record must not bring back 20's first value.
  await write({ h: 'b' }, [10, 20]);
  await write(
    { h: 'b' },
    Array.from({ length: 300 }, (_, i) => 100 + i),
  );
  await write({ h: 'b' }, [20], [-20]);
  await write({ h: 'b' }, [1_000]);
} else {
  for (const from of [0, 5_000]) {
    const timestamps = Array.from({ length: 5_000 }, (_, i) => from + i);
    await write({ h: 'a' }, timestamps);
  }
}
process.stdout.write('acknowledged\n');
setInterval(() => undefined, 1000);
