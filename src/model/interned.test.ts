/** Interned values by their text, and what is derived from frozen objects, made once. */
import { describe, expect, it } from 'vitest';
import { detached, FrozenMemo, Interned, memoByFrozen } from './interned.js';

describe('Interned', () => {
  it('makes the value of a text once and hands the same one for it again', () => {
    const interned = new Interned<{ n: number }>(Object.freeze);
    let made = 0;
    const make = () => ({ n: ++made });
    const first = interned.of('a', make);
    expect(interned.of('a', make)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(interned.of('b', make)).toEqual({ n: 2 });
    expect(made).toBe(2);
  });

  it('keeps nothing for a text whose value could not be made, so it fails again each time', () => {
    const interned = new Interned<number>((n) => n);
    let calls = 0;
    const refuse = () => {
      calls++;
      throw new Error('bad');
    };
    expect(() => interned.of('x', refuse)).toThrow('bad');
    expect(() => interned.of('x', refuse)).toThrow('bad');
    expect(calls).toBe(2);
    expect(interned.of('x', () => 7)).toBe(7);
  });

  it('starts again from none past its capacity, 100,000 texts unless told, and goes on interning when they were found again', () => {
    for (const capacity of [1_000, undefined]) {
      const held = capacity ?? 100_000;
      const interned = new Interned<object>(Object.freeze, capacity);
      const first = interned.of('0', () => ({}));
      for (let i = 1; i < held; i++) interned.of(String(i), () => ({}));
      for (let i = 0; i < held; i++) interned.of(String(i), () => ({}));
      expect(interned.of('0', () => ({}))).toBe(first);
      interned.of(String(held), () => ({}));
      const again = interned.of('0', () => ({}));
      expect(again).not.toBe(first);
      expect(interned.of('0', () => ({}))).toBe(again);
    }
  });

  it('bypasses itself once it filled with texts never found again, twice as long each time in a row, then interns again', () => {
    const interned = new Interned<object>(Object.freeze, 1_000);
    const kept = (text: string) => Object.isFrozen(interned.of(text, () => ({})));
    let next = 0;
    /** Looks up texts never seen before until one is bypassed; how many were kept. */
    const fillInVain = () => {
      let count = 0;
      while (kept(`t${next++}`)) count++;
      return count;
    };
    /** How many lookups were bypassed, the one that ended fillInVain included. */
    const bypassed = () => {
      let count = 1;
      while (!kept('x')) count++;
      return count;
    };
    expect(fillInVain()).toBe(1_001);
    expect(bypassed()).toBe(1_000);
    expect(interned.of('x', () => ({}))).toBe(interned.of('x', () => ({})));
    // The table holds 'x', found twice: less than once an entry, in vain again.
    expect(fillInVain()).toBe(1_000);
    expect(bypassed()).toBe(2_000);
    // A table whose entries are found again starts again without a bypass, and the next bypass is short again.
    for (let round = 0; round < 3; round++) for (let i = 0; i < 999; i++) interned.of(`u${i}`, () => ({}));
    expect(kept('v')).toBe(true);
    expect(kept('v')).toBe(true);
    expect(fillInVain()).toBe(1_000);
    expect(bypassed()).toBe(1_000);
  });

  it("bypasses at most 64 tables' worth of lookups, however many tables in a row filled in vain", () => {
    const interned = new Interned<object>(Object.freeze, 10);
    const kept = (text: string) => Object.isFrozen(interned.of(text, () => ({})));
    let next = 0;
    const lengths: number[] = [];
    for (let round = 0; round < 9; round++) {
      while (kept(`t${next++}`));
      let count = 1;
      while (!kept('x')) count++;
      lengths.push(count);
    }
    expect(lengths).toEqual([10, 20, 40, 80, 160, 320, 640, 640, 640]);
  });
});

describe('memoByFrozen', () => {
  it('derives once for a frozen object and each time for any other', () => {
    let derived = 0;
    const keysOf = memoByFrozen((o: object) => {
      derived++;
      return Object.keys(o);
    });
    const frozen = Object.freeze({ a: 1 });
    expect(keysOf(frozen)).toBe(keysOf(frozen));
    expect(derived).toBe(1);
    const open = { a: 1 };
    expect(keysOf(open)).toEqual(['a']);
    expect(keysOf(open)).toEqual(['a']);
    expect(derived).toBe(3);
  });
});

describe('FrozenMemo', () => {
  it('holds a value of each memo for each object', () => {
    const [first, second] = [new FrozenMemo<object, string>(), new FrozenMemo<object, string>()];
    const [a, b] = [Object.freeze({}), Object.freeze({})];
    first.set(a, 'first a');
    second.set(a, 'second a');
    first.set(b, 'first b');
    expect([first.get(a), second.get(a), first.get(b), second.get(b)]).toEqual([
      'first a',
      'second a',
      'first b',
      undefined,
    ]);
  });
});

describe('detached', () => {
  it('is the same text', () => {
    const body = `cpu,host=${'a'.repeat(40)} idle=1`;
    expect(detached(body.slice(4, 50))).toBe(body.slice(4, 50));
    expect(detached('')).toBe('');
    expect(detached('ü"\\\n')).toBe('ü"\\\n');
  });
});
