/**
 * Two embedded KairosDB sources, `a` and `b`, configured through a SOURCES_FILE in a scratch directory, as
 * `npm run copy` reads them; and every point of a source, dumped for exact comparison.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/gateway/config.js';
import { IndexLoaders } from '../../src/sources/index-loaders.js';
import { openSource } from '../../src/sources/open-sources.js';
import { describeSeries } from '../../src/copy/read-back.js';
import type { SeriesWrite } from '../../src/model/write-batch.js';
import type { Source } from '../../src/sources/source.js';
import { loadSourcesFile } from '../../src/sources/sources-file.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { tempDir } from './temp-dir.js';
import { sourcesFileOptions, sourcesOptions } from '../../src/gateway/layer-options.js';

export const HOUR = 3_600_000;

export interface CopyFixture {
  readonly dir: string;
  /** The environment the gateway (and the CLI) reads. */
  readonly env: Record<string, string>;
  open(name: string): Promise<Source>;
}

/**
 * Sources `a` (rows of ROW_WIDTH, 1 hour) and `b`, whose store is made first with rows of `destinationRowWidthMs`
 * when given: the destination partitions the same series differently.
 */
export async function copyFixture(destinationRowWidthMs?: number): Promise<CopyFixture> {
  const dir = tempDir('kairograph-copy-');
  const sourcesFile = join(dir, 'sources.json');
  const store = (name: string) => ({ name, layout: 'kairosdb', store: 'embedded', path: join(dir, name) });
  writeFileSync(sourcesFile, JSON.stringify({ sources: [store('a'), store('b')] }));
  if (destinationRowWidthMs !== undefined)
    await (await EmbeddedStore.open({ path: join(dir, 'b'), rowWidth: destinationRowWidthMs })).close();
  const env = {
    SOURCES_FILE: sourcesFile,
    DATA_DIR: join(dir, 'primary'),
    ROW_WIDTH: String(HOUR),
    LOG_LEVEL: 'silent',
  };
  const config = loadConfig(env);
  const settings = loadSourcesFile(sourcesFileOptions(config));
  return { dir, env, open: (name) => openSource(sourcesOptions(config), settings, name) };
}

/** Every point of every series of `source` in the range, by series and kind, in time order, values as exact text. */
export async function dump(source: Source, startMs = -8.64e15, endMs = 8.64e15): Promise<Record<string, string[]>> {
  const out: Record<string, [number, string][]> = {};
  for (const metric of await source.metricNames('')) {
    const plan = await source.findSeries(new IndexLoaders(), metric, { startMs, endMs }, () => true);
    for (const key of plan.partitions) {
      for await (const slice of source.read(key, startMs, endMs)) {
        const id = `${describeSeries(metric, key.tags)} ${slice.kind}`;
        const points = (out[id] ??= []);
        for (let i = 0; i < slice.timestamps.length; i++) {
          let value: string;
          if (slice.kind === 'long')
            value = slice.exact !== undefined ? String(slice.exact[i]) : String(slice.values[i]);
          else if (slice.kind === 'string') value = JSON.stringify(slice.values[i]);
          else value = Object.is(slice.values[i], -0) ? '-0' : String(slice.values[i]);
          points.push([slice.timestamps[i]!, value]);
        }
      }
    }
  }
  const sorted: Record<string, string[]> = {};
  for (const id of Object.keys(out).sort())
    sorted[id] = out[id]!.sort((x, y) => x[0] - y[0]).map(([t, v]) => `${t} ${v}`);
  return sorted;
}

/** `count` points of one series, one every `stepMs` from `startMs`, values from `value`. */
export function series(
  metric: string,
  tags: Record<string, string>,
  type: SeriesWrite['type'],
  startMs: number,
  stepMs: number,
  count: number,
  value: (i: number) => number | bigint | string,
): SeriesWrite {
  const timestamps: number[] = [];
  const values: (number | bigint | string)[] = [];
  for (let i = 0; i < count; i++) {
    timestamps.push(startMs + i * stepMs);
    values.push(value(i));
  }
  return { metric, tags, type, ttlSeconds: 0, timestamps, values };
}
