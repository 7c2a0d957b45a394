/**
 * The static catalogue, for deployments small enough to name their series in the source's settings. A module apart
 * from the scan (scan-catalogue.ts) because it shares nothing with it but the contract (catalogue.ts): no file, no
 * passes, no tokens.
 */
import type { Tags } from '../../model/series.js';
import type { CatalogueStatus } from '../capabilities.js';
import type { Catalogue, CataloguedPartition } from './catalogue.js';

/**
 * Series listed in the source's settings, for deployments small enough to name them: every period of the query's
 * range is read for each (Heroic's own way: it computes partitions, it never lists them), and series written through
 * the gateway are added until it stops. `periods` gives the periods of a range; `stored` what a partition is read by.
 */
export class StaticCatalogue<S> implements Catalogue<S> {
  private readonly byGroup = new Map<string, Map<string, Tags>>();

  constructor(
    listed: readonly { readonly group: string; readonly tags: Tags }[],
    private readonly periods: (fromBase: number, toBase: number) => readonly number[],
    private readonly stored: (group: string, tags: Tags, base: number) => S,
  ) {
    for (const s of listed) this.add(s.group, s.tags);
  }

  groups(prefix: string, limit?: number): string[] {
    const names = [...this.byGroup.keys()].filter((name) => name.startsWith(prefix)).sort();
    return limit === undefined ? names : names.slice(0, limit);
  }

  partitions(group: string, fromBase: number, toBase: number): CataloguedPartition<S>[] {
    const found: CataloguedPartition<S>[] = [];
    for (const base of this.periods(fromBase, toBase)) {
      for (const tags of this.byGroup.get(group)?.values() ?? [])
        found.push({ group, base, tags, stored: this.stored(group, tags, base) });
    }
    return found;
  }

  learn(partitions: readonly CataloguedPartition<S>[]): void {
    for (const p of partitions) this.add(p.group, p.tags);
  }

  forget(): void {}

  forgetGroup(): void {}

  status(): CatalogueStatus {
    let partitions = 0;
    for (const list of this.byGroup.values()) partitions += list.size;
    return {
      kind: 'static',
      partitions,
      passes: 0,
      lastPassEndedMs: undefined,
      progress: 1,
      keysScanned: 0,
      undecodableKeys: 0,
      otherSchemaKeys: 0,
      uncataloguedKeys: 0,
    };
  }

  async close(): Promise<void> {}

  private add(group: string, tags: Tags): void {
    let list = this.byGroup.get(group);
    if (list === undefined) this.byGroup.set(group, (list = new Map()));
    list.set(JSON.stringify(Object.entries(tags).sort()), tags);
  }
}
