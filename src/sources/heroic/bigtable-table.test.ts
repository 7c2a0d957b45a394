/**
 * The catalogue's cursor over Bigtable's row keys: a key's bytes behind a 0x01 byte, as a bigint, and how far along the
 * key space it is (the catalogue's `progress`).
 */
import { describe, expect, it } from 'vitest';
import { FIRST_TOKEN } from '../catalogue/scan-catalogue.js';
import { keyProgress } from './bigtable-table.js';

const cursor = (hex: string): bigint => BigInt(`0x01${hex}`);

describe('keyProgress', () => {
  it('is 0 before the first key and the share of the key space below a key, by its first six bytes', () => {
    expect(keyProgress(FIRST_TOKEN)).toBe(0);
    expect(keyProgress(cursor('00'))).toBe(0);
    expect(keyProgress(cursor('80'))).toBe(0.5);
    expect(keyProgress(cursor('c0000000000000ff'))).toBe(0.75);
    expect(keyProgress(cursor('ffffffffffff'))).toBe(1 - 2 ** -48);
  });
});
