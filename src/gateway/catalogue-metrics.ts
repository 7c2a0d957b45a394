/**
 * `/metrics` for the catalogues of the sources that keep one (Heroic's): how much they know, how far the pass under
 * way has come, how old the last whole pass is, and the keys they could not use, one series per source.
 */
import { Gauge, type Registry } from 'prom-client';
import type { CatalogueStatus } from '../sources/capabilities.js';
import type { Sources } from '../sources/sources.js';

export function registerCatalogueMetrics(registry: Registry, sources: Sources): void {
  const withCatalogue = sources.all.filter((source) => source.capabilities.catalogue !== undefined);
  if (withCatalogue.length === 0) return;
  const gauge = (
    name: string,
    help: string,
    value: (status: CatalogueStatus) => number | undefined,
    labels: readonly string[] = ['source'],
  ) =>
    new Gauge({
      name,
      help,
      labelNames: labels,
      registers: [registry],
      collect() {
        this.reset();
        for (const source of withCatalogue) {
          const v = value(source.capabilities.catalogue!.status());
          if (v !== undefined) this.set({ source: source.name }, v);
        }
      },
    });
  gauge(
    'kairograph_catalogue_partitions',
    'Partitions (series x period) a source catalogue knows',
    (s) => s.partitions,
  );
  gauge('kairograph_catalogue_passes', 'Whole passes over the table a source catalogue has ended', (s) => s.passes);
  gauge(
    'kairograph_catalogue_pass_progress',
    'How far the catalogue pass under way has come, from 0 to 1 (by token)',
    (s) => s.progress,
  );
  gauge(
    'kairograph_catalogue_keys_scanned',
    'Partition keys read by the catalogue pass under way',
    (s) => s.keysScanned,
  );
  gauge(
    'kairograph_catalogue_age_seconds',
    'Seconds since the last whole catalogue pass ended (absent before the first)',
    (s) => (s.lastPassEndedMs === undefined ? undefined : (Date.now() - s.lastPassEndedMs) / 1000),
  );
  new Gauge({
    name: 'kairograph_catalogue_skipped_keys',
    help: 'Partition keys of the last whole catalogue pass it could not use, by why: undecodable, other_schema, uncatalogued',
    labelNames: ['source', 'why'],
    registers: [registry],
    collect() {
      this.reset();
      for (const source of withCatalogue) {
        const s = source.capabilities.catalogue!.status();
        this.set({ source: source.name, why: 'undecodable' }, s.undecodableKeys);
        this.set({ source: source.name, why: 'other_schema' }, s.otherSchemaKeys);
        this.set({ source: source.name, why: 'uncatalogued' }, s.uncataloguedKeys);
      }
    },
  });
}
