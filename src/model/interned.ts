/**
 * The series a collector sends again in every request, read once. A front end that reads a series' identity from the
 * same text request after request (a remote-write series' labels, a line's measurement and tag set, a REST metric
 * object's tags) interns what it makes of that text, and so hands the same frozen Tags object for that series every
 * time. What the write path derives from tags alone is memoized by that object (memoByFrozen): their validation, their
 * canonical tag string, their row key. Tags not frozen (a GraphQL mutation's) are derived each time.
 */

/**
 * Entries kept at most unless told; past this the table starts again from none, as a collector's series set changes
 * slowly. More holds a larger sender's series, and costs every sender's heap more (bench/RESULTS.md).
 */
const MAX_ENTRIES = 100_000;
/** The longest bypass, in tables' worths: a sender's series set may shrink, and interning is tried again this often. */
const MAX_BYPASS_TABLES = 64;

export class Interned<T> {
  private readonly byText = new Map<string, T>();
  /** Lookups that found their text since the table last started again. */
  private hits = 0;
  /** Lookups left that neither look nor keep, after a table that filled up without being used. */
  private bypass = 0;
  /** The next bypass's length: doubled by every table filled in vain in a row, so such tries become rare. */
  private nextBypass: number;

  /**
   * `keep` makes a value made by `make` fit to be kept across requests: frozen, detached from the request's body.
   * Only kept values are: a value made while interning is bypassed is `make`'s alone, as it would be without this.
   * `capacity`: entries kept at most.
   */
  constructor(
    private readonly keep: (made: T) => T,
    private readonly capacity = MAX_ENTRIES,
  ) {
    this.nextBypass = capacity;
  }

  /**
   * What `text` stands for, made by `make` the first time. `make` throws for bad text; nothing is kept then, so bad
   * text is refused every time, with the error of that request's own place. A sender of more series than the table
   * holds, sent in turn, would find none of them there and pay for keeping each: once the table fills with less than
   * a lookup found per entry, interning is bypassed for as many lookups as it holds (twice as many after each such
   * table in a row, up to MAX_BYPASS_TABLES tables' worth), then tried again: filling a table in vain costs several
   * times what it saves.
   */
  of(text: string, make: () => T): T {
    if (this.bypass > 0) {
      this.bypass--;
      return make();
    }
    const found = this.byText.get(text);
    if (found !== undefined) {
      this.hits++;
      return found;
    }
    const value = this.keep(make());
    if (this.byText.size >= this.capacity) {
      if (this.hits < this.byText.size) {
        this.bypass = this.nextBypass;
        this.nextBypass = Math.min(2 * this.nextBypass, MAX_BYPASS_TABLES * this.capacity);
      } else this.nextBypass = this.capacity;
      this.byText.clear();
      this.hits = 0;
    }
    if (this.bypass === 0) this.byText.set(detached(text), value);
    return value;
  }
}

/**
 * `text` with its length before it: names and values spelled so one after another are the text of one list only (a
 * series' labels or tags), whatever characters they hold, to intern the list by.
 */
export function spelled(text: string): string {
  // A length one UTF-16 unit cannot hold follows the mark 0xFFFF, in two more: still one spelling per list.
  return text.length < 0xffff
    ? String.fromCharCode(text.length) + text
    : String.fromCharCode(0xffff, text.length >>> 16, text.length & 0xffff) + text;
}

/**
 * A copy of `text` that keeps nothing else alive: V8 keeps a substring as a view into the string it was cut from, so
 * a tag cut from a request's body and kept here would keep the whole body. What is kept across requests is detached.
 */
export function detached(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/**
 * What is derived from frozen objects, each object's values in one entry: the write path derives several things from a
 * series' tags (their validation, tag string, sizes, row keys), and a sender of many series finds each entry out of
 * the processor's caches: one lookup of a table, not one of each memo's.
 */
const DERIVED = new WeakMap<object, unknown[]>();
let slots = 0;

/** One value derived from each frozen object, held with the object's others (DERIVED). */
export class FrozenMemo<K extends object, V> {
  private readonly slot = slots++;

  get(key: K): V | undefined {
    return DERIVED.get(key)?.[this.slot] as V | undefined;
  }

  /** `key` must be frozen: what is derived from it holds as long as it lives. */
  set(key: K, value: V): void {
    let derived = DERIVED.get(key);
    if (derived === undefined) DERIVED.set(key, (derived = []));
    derived[this.slot] = value;
  }
}

/**
 * `derive`, memoized by object for frozen objects (which never change, so what is derived from them holds); derived
 * each time for any other.
 */
export function memoByFrozen<K extends object, V>(derive: (key: K) => V): (key: K) => V {
  const memo = new FrozenMemo<K, V>();
  return (key) => {
    if (!Object.isFrozen(key)) return derive(key);
    let value = memo.get(key);
    if (value === undefined) {
      value = derive(key);
      memo.set(key, value);
    }
    return value;
  };
}
