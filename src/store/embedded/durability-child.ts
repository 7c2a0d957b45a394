/**
 * Test helper process: runs a scenario of writes to the embedded store at argv[2], prints "acknowledged" once every
 * write resolved, then idles until the test kills it with SIGKILL, so the store is never closed nor its head flushed.
 *   blocks: two batches of 5,000 points, the second appended to the first's last block.
 *   head: small writes held in the head, a flush, a delete reaching into the head, a point the head could not hold
 *     written to the blocks with the cells before it, an overwrite of one of those, a failed write of a new series,
 *     and a write beside a flush pass.
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
  // h=c: first named in the log by a write that fails (a row key over LMDB's key size), so the next names it again.
  const c = (timestamps: number[]) => ({
    metric: 'durable',
    tags: { h: 'c' },
    type: 'double' as const,
    ttlSeconds: 0,
    timestamps,
    values: timestamps,
  });
  const failed = await store
    .write({ series: [c([1]), { ...c([1]), tags: { h: 'x'.repeat(3000) } }] })
    .catch(() => 'failed');
  if (failed !== 'failed') throw new Error('a row key over the key size was written');
  await write({ h: 'c' }, [2]);
  // h=d: a write queued as a flush pass begins: its record follows the pass's start, so it names the partition again,
  // for the records that named it before are dropped. The pass writes 1 and 2; 3 stays in the head.
  await write({ h: 'd' }, [1]);
  const flushed = store.flush();
  await write({ h: 'd' }, [2]);
  await flushed;
  await write({ h: 'd' }, [3]);
} else if (process.argv[3] === 'blocks') {
  for (const from of [0, 5_000]) {
    const timestamps = Array.from({ length: 5_000 }, (_, i) => from + i);
    await write({ h: 'a' }, timestamps);
  }
} else {
  throw new Error(`no scenario ${process.argv[3]}`);
}
process.stdout.write('acknowledged\n');
setInterval(() => undefined, 1000);
