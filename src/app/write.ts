/**
 * The one write path of every front end: a batch the front end parsed and validated whole is written through its
 * source (index entries before data, acknowledged once durable), then the request's loaders forget what they read,
 * so a read after the write in the same request sees the new series.
 */
import type { WriteBatch } from '../model/write-batch.js';
import type { Source } from '../sources/source.js';
import type { RequestScope } from './request-scope.js';

export async function writeBatch(scope: RequestScope, source: Source, batch: WriteBatch): Promise<void> {
  if (batch.series.length === 0) return;
  await source.write(batch);
  scope.loaders.clear();
}
