/**
 * The configured sources of one gateway: the primary source (`STORE`, named by PRIMARY_SOURCE_NAME) and those of
 * SOURCES_FILE. Requests name a source by its name; one that names none gets the primary.
 */
import { InputError } from '../model/errors.js';
import { settleAll } from '../lib/settle-all.js';
import type { Source } from './source.js';

/** Letters, digits, `.`, `_` and `-`: names go into cache keys as `<source>/<metric>`, so no `/`. */
export const SOURCE_NAME = /^[A-Za-z0-9._-]{1,64}$/;
export const SOURCE_NAME_RULE = 'must be 1 to 64 letters, digits, ".", "_" or "-"';

export class Sources {
  /** Every source, the primary first, then in configuration order. */
  readonly all: readonly Source[];
  private readonly byName = new Map<string, Source>();

  constructor(
    readonly primary: Source,
    others: readonly Source[] = [],
  ) {
    this.all = [primary, ...others];
    for (const source of this.all) {
      // Configuration is validated with messages of its own (sources-file.ts); this guards code that builds sources.
      if (!SOURCE_NAME.test(source.name))
        throw new Error(`source name ${JSON.stringify(source.name)} ${SOURCE_NAME_RULE}`);
      if (this.byName.has(source.name)) throw new Error(`two sources are named ${JSON.stringify(source.name)}`);
      this.byName.set(source.name, source);
    }
  }

  /** The source a request names (`field` is its argument, for the error), or the primary one when it names none. */
  get(name: string | null | undefined, field = 'source'): Source {
    if (name === null || name === undefined) return this.primary;
    const source = this.byName.get(name);
    if (source === undefined)
      throw new InputError(field, name, `must be one of the configured sources: ${[...this.byName.keys()].join(', ')}`);
    return source;
  }

  /** The same sources, each as `wrap` makes it (the gateway wraps them for shared reads and invalidation). */
  map(wrap: (source: Source) => Source): Sources {
    const [primary, ...others] = this.all.map(wrap);
    return new Sources(primary!, others);
  }

  /** Closes every source, even when one fails to close; rejects with the first failure. */
  async close(): Promise<void> {
    await settleAll(this.all.map((source) => source.close()));
  }
}
