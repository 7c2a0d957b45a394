/**
 * Test helper process: writes two batches to the embedded store at argv[2], the second appended to the first's last
 * block, prints "acknowledged" once both writes resolved, then idles until the test kills it with SIGKILL.
 */
import { EmbeddedStore } from './embedded-store.js';

const store = await EmbeddedStore.open({ path: process.argv[2]!, rowWidth: 10_000_000 });
for (const from of [0, 5_000]) {
  const timestamps = Array.from({ length: 5_000 }, (_, i) => from + i);
  await store.write({
    series: [{ metric: 'durable', tags: { h: 'a' }, type: 'double', ttlSeconds: 0, timestamps, values: timestamps }],
  });
}
process.stdout.write('acknowledged\n');
setInterval(() => undefined, 1000);
