/** The embedded store's tables as they lie on disk, for tests of how writes pack data_points and log the head. */
import { open as openLmdb } from 'lmdb';
import { blockFirstColumn } from '../../src/store/embedded/keys.js';

/** The data_points blocks of the closed store at `path`, in key order. */
export async function blocksAt(path: string): Promise<{ firstColumn: number; bytes: Buffer }[]> {
  return read(path, 'data_points', ({ key, value }) => ({ firstColumn: blockFirstColumn(key), bytes: value }));
}

/** The head_log records of the closed store at `path`, in order. */
export async function headLogAt(path: string): Promise<Buffer[]> {
  return read(path, 'head_log', ({ value }) => value);
}

async function read<T>(path: string, name: string, map: (entry: { key: Buffer; value: Buffer }) => T): Promise<T[]> {
  const env = openLmdb({ path, maxDbs: 8, readOnly: true });
  const table = env.openDB<Buffer, Buffer>(name, { keyEncoding: 'binary', encoding: 'binary' });
  const entries = [...table.getRange()].map(({ key, value }) =>
    map({ key: Buffer.from(key), value: Buffer.from(value) }),
  );
  await env.close();
  return entries;
}
