/** The embedded store's data_points blocks as they lie on disk, for tests of how writes pack them. */
import { open as openLmdb } from 'lmdb';
import { blockFirstColumn } from '../../src/store/embedded/keys.js';

/** The data_points blocks of the closed store at `path`, in key order. */
export async function blocksAt(path: string): Promise<{ firstColumn: number; bytes: Buffer }[]> {
  const env = openLmdb({ path, maxDbs: 8, readOnly: true });
  const table = env.openDB<Buffer, Buffer>('data_points', { keyEncoding: 'binary', encoding: 'binary' });
  const blocks = [...table.getRange()].map(({ key, value }) => ({
    firstColumn: blockFirstColumn(key),
    bytes: Buffer.from(value),
  }));
  await env.close();
  return blocks;
}
