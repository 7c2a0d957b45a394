import { describe, expect, it } from 'vitest';
import { Head } from './head.js';
import { covers, PartitionNotes } from './partition-notes.js';

const key = (name: string) => new TextEncoder().encode(name);
const cells = (...columns: number[]) => ({
  columns,
  expiries: columns.map(() => 0),
  values: columns.map((column) => new Uint8Array(8).fill(column)),
});

describe('PartitionNotes', () => {
  it('finds the notes of a partition by its row key bytes, wherever the bytes lie', () => {
    const notes = new PartitionNotes(3);
    const a = notes.of(key('a'));
    a.tailSize = 12;
    const inside = new Uint8Array([0x7a, 0x61, 0x7a]).subarray(1, 2);
    expect(notes.of(inside)).toBe(a);
    expect(notes.of(key('b'))).not.toBe(a);
    expect(notes.of(key('b')).tailSize).toBe(0);
  });

  it('once full, notes no more partitions but keeps finding those it holds', () => {
    const notes = new PartitionNotes(3);
    const held = ['a', 'b', 'c'].map((name) => notes.of(key(name)));
    const d = notes.of(key('d'));
    d.tailSize = 7;
    const again = notes.of(key('d'));
    expect(again).not.toBe(d);
    expect(again.tailSize).toBe(0);
    expect(['a', 'b', 'c'].map((name) => notes.of(key(name)))).toEqual(held);
    expect(notes.of(key('a'))).toBe(held[0]);
  });

  it('starts again from none once the partitions it misses outnumber those it finds by a whole table', () => {
    const notes = new PartitionNotes(3);
    const a = notes.of(key('a'));
    notes.of(key('b'));
    notes.of(key('c'));
    // Misses less finds: d 1, a 0, e 1, f 2, b 1, g 2: still held.
    for (const name of ['d', 'a', 'e', 'f', 'b', 'g']) notes.of(key(name));
    expect(notes.of(key('a'))).toBe(a);
    // a found (1), h 2, i 3: a whole table's worth, so the notes start again and note i's successors.
    for (const name of ['h', 'i']) notes.of(key(name));
    expect(notes.of(key('a'))).not.toBe(a);
    const j = notes.of(key('j'));
    expect(notes.of(key('j'))).toBe(j);
  });

  it('a sender of more series than it holds, sending them in turn, finds as many as it holds each round', () => {
    const notes = new PartitionNotes(100);
    const names = Array.from({ length: 150 }, (_, i) => `series-${i}`);
    for (const name of names) notes.of(key(name)).tailSize = 1;
    for (let round = 0; round < 5; round++) {
      const found = names.filter((name) => notes.of(key(name)).tailSize === 1).length;
      expect(found).toBe(100);
    }
  });

  it('forgets every note on forget(), and takes no index expiry from a write that began before it', () => {
    const notes = new PartitionNotes(3);
    const a = notes.of(key('a'));
    const generation = notes.generation;
    notes.forget();
    notes.indexed(generation, [{ known: a, expiry: 100 }]);
    expect(a.indexExpiry).toBeUndefined();
    const again = notes.of(key('a'));
    expect(again).not.toBe(a);
    notes.indexed(notes.generation, [{ known: again, expiry: 100 }]);
    expect(notes.of(key('a')).indexExpiry).toBe(100);
  });

  it('forgets every note when the work it runs throws', () => {
    const notes = new PartitionNotes(3);
    const a = notes.of(key('a'));
    expect(() =>
      notes.forgetIfThrows(() => {
        throw new Error('put failed');
      }),
    ).toThrow('put failed');
    expect(notes.of(key('a'))).not.toBe(a);
  });
});

describe('PartitionNotes with a slot', () => {
  it('finds what the slot kept while the notes hold it, and looks the partition up once they may not', () => {
    const notes = new PartitionNotes(3);
    const slot = { owner: undefined, value: undefined };
    const a = notes.of(key('a'), slot);
    expect([slot.owner, slot.value]).toEqual([notes, a]);
    // Found through the slot, not by the bytes: the slot is the partition's own.
    expect(notes.of(key('other'), slot)).toBe(a);
    notes.forget();
    const again = notes.of(key('a'), slot);
    expect(again).not.toBe(a);
    expect(slot.value).toBe(again);
    expect(notes.of(key('a'))).toBe(again);
    // Another store's notes keep their own.
    const others = new PartitionNotes(3);
    expect(others.of(key('a'), slot)).not.toBe(again);
    expect(slot.owner).toBe(others);
  });
});

describe('PartitionNotes with the head', () => {
  it('holds a partition with cells in the head through forget() and full tables, forgetting only its notes', () => {
    const notes = new PartitionNotes(2);
    const head = new Head(notes);
    const a = notes.of(key('a'));
    a.tailSize = 5;
    a.indexExpiry = 100;
    expect(head.add(a, cells(1, 2), undefined, 0)).toBe(true);
    notes.forget();
    expect(notes.of(key('a'))).toBe(a);
    expect([a.tailSize, a.indexExpiry, a.cells, a.lastColumn]).toEqual([0, undefined, 2, 2]);
    // Full (a, b): c is not noted, until it has cells in the head.
    notes.of(key('b'));
    const c = notes.of(key('c'));
    expect(notes.find(c.id)).toBeUndefined();
    expect(head.add(c, cells(7), undefined, 0)).toBe(true);
    expect(notes.of(key('c'))).toBe(c);
    // Misses outnumber finds by a table: the notes start again, but for a and c.
    for (const name of ['d', 'e', 'f']) notes.of(key(name));
    expect([notes.find(a.id), notes.find(c.id), notes.find('b')]).toEqual([a, c, undefined]);
    expect(notes.withCells()).toEqual([a, c]);
    // Flushed: a is a note again, forgotten with the others.
    head.trim(a, 2);
    expect([a.cells, a.block]).toEqual([0, undefined]);
    notes.forget();
    expect(notes.of(key('a'))).not.toBe(a);
    expect(notes.withCells()).toEqual([c]);
  });
});

describe('covers', () => {
  it.each([
    [0, 0, true],
    [0, 500, true],
    [undefined, 0, false],
    [undefined, 500, false],
    [500, 0, false],
    [500, 499, true],
    [500, 500, true],
    [500, 501, false],
  ])('an index row expiring at %s lives until %s: %s', (stored, expiry, expected) => {
    expect(covers(stored, expiry)).toBe(expected);
  });
});
