/**
 * The series a collector sends again in every request, read once. A front end that reads a series' identity from the
 * same text request after request (a remote-write series' labels, a line's measurement and tag set) interns what it
 * makes of that text, and so hands the same frozen Tags object for that series every time. What the write path
 * derives from tags alone is memoized by that object (memoByFrozen): their validation, their canonical tag string,
 * their row key. Tags not frozen (a REST body's, a GraphQL mutation's) are derived each time, as before.
 */

/** Entries kept at most; past this the table starts again from none, as a collector's series set changes slowly. */
const MAX_ENTRIES = 100_000;

export class Interned<T> {
  private readonly byText = new Map<string, T>();

  /**
   * What `text` stands for, made by `make` the first time (which freezes what must not change). `make` throws for
   * bad text; nothing is kept then, so bad text is refused every time, with the error of that request's own place.
   */
  of(text: string, make: () => T): T {
    let value = this.byText.get(text);
    if (value === undefined) {
      value = make();
      if (this.byText.size >= MAX_ENTRIES) this.byText.clear();
      this.byText.set(detached(text), value);
    }
    return value;
  }
}

/**
 * A copy of `text` that keeps nothing else alive: V8 keeps a substring as a view into the string it was cut from, so
 * a tag cut from a request's body and kept here would keep the whole body. What is kept across requests is detached.
 */
export function detached(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/**
 * `derive`, memoized by object for frozen objects (which never change, so what is derived from them holds); derived
 * each time for any other.
 */
export function memoByFrozen<K extends object, V>(derive: (key: K) => V): (key: K) => V {
  const memo = new WeakMap<K, V>();
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
