/**
 * Test helper process: writes one batch to the embedded store at argv[2], prints "acknowledged" once the write
 * resolved, then idles until the test kills it with SIGKILL.
 */
import { EmbeddedStore } from './embedded-store.js';

const store = await EmbeddedStore.open({ path: process.argv[2]!, rowWidth: 10_000_000 });
const timestamps = Array.from({ length: 10_000 }, (_, i) => i);
await store.write({
  series: [{ metric: 'durable', tags: { h: 'a' }, type: 'double', ttlSeconds: 0, timestamps, values: timestamps }],
});
process.stdout.write('acknowledged\n');
setInterval(() => undefined, 1000);
