/**
 * The Source conformance suite (test/source-conformance.ts) on a heroic source on the bigtable store, against the
 * emulator: each case gets an empty table, in an instance of its own, created with Heroic's families by Google's client.
 */
import { afterAll, inject } from 'vitest';
import { widthOf } from '../../src/sources/heroic/partitions.js';
import { openHeroicBigtableSource } from '../../src/sources/heroic/open-heroic-bigtable-source.js';
import { DECLARED, describeSourceConformance } from '../source-conformance.js';
import { heroicWrite } from '../support/heroic-writer.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';

afterAll(removeTempDirs);

let opened = 0;
const WIDTH = widthOf('bigtable');

describeSourceConformance("heroic's table on Bigtable", {
  declared: DECLARED.heroic,
  widthMs: WIDTH,
  t0: 400 * WIDTH,
  metric: (type) => `sc.${type}`,
  open: async () => {
    const { endpoint, writer } = inject('bigtable');
    const place = { endpoint, writer, project: 'kairograph-test', instance: `conformance-${++opened}` };
    heroicWrite(place, []);
    return openHeroicBigtableSource(
      {
        name: 'sc',
        layout: 'heroic',
        bigtable: { project: place.project, instance: place.instance, table: 'metrics', endpoint, google: false },
        catalogue: { kind: 'scan', path: tempDir(), refreshIntervalMs: 600_000 },
      },
      undefined,
    );
  },
});
