/** Null-prototype records: every key a client may choose is data, to write and to read. */
import { describe, expect, it } from 'vitest';
import { dict, dictOf } from './dict.js';

const MEMBERS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'];

describe('dict', () => {
  it('keeps every key of Object.prototype as an own entry, in order, and JSON shows them', () => {
    const record = dict<string>();
    for (const name of MEMBERS) record[name] = `${name}!`;
    expect(Object.getPrototypeOf(record)).toBe(null);
    expect(Object.keys(record)).toEqual(MEMBERS);
    expect(JSON.stringify(record)).toBe(JSON.stringify(Object.fromEntries(MEMBERS.map((name) => [name, `${name}!`]))));
  });

  it('reads absent keys as undefined, where a plain object finds Object.prototype', () => {
    const record = dict<string>();
    expect(MEMBERS.map((name) => record[name])).toEqual(MEMBERS.map(() => undefined));
    expect(({} as Record<string, unknown>)['constructor']).toBe(Object);
  });
});

describe('dictOf', () => {
  it('builds from entries; a key given twice keeps its last value', () => {
    const record = dictOf([
      ['__proto__', 'a'],
      ['h', 'b'],
      ['__proto__', 'c'],
    ]);
    expect([Object.getPrototypeOf(record), Object.entries(record)]).toEqual([
      null,
      [
        ['__proto__', 'c'],
        ['h', 'b'],
      ],
    ]);
  });
});
