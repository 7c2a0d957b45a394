/** Keys Heroic could not have written: the exact reason decodeKey gives for each, with the byte it failed at. */
import { describe, expect, it } from 'vitest';
import { fromHex } from '../../../test/support/bytes.js';
import { component, entry, NG_CPU_HEX } from '../../../test/support/heroic-keys.js';
import { decodeKey } from './row-key.js';

describe('decodeKey: malformed keys', () => {
  const NG_TAIL = '; read as a pre-resource key (no resource map): ';
  const cpuLegacySeries = component(component('02637075') + component('0000'));
  it.each([
    // schema, key hex, expected error
    [
      'ng',
      '',
      `metric key: string length: the key ends inside a varint (byte 0 of 0)${NG_TAIL}metric key: string length: the key ends inside a varint (byte 0 of 0)`,
    ],
    [
      'ng',
      '80',
      `metric key: string length: the key ends inside a varint (byte 0 of 1)${NG_TAIL}metric key: string length: the key ends inside a varint (byte 0 of 1)`,
    ],
    [
      'ng',
      '05 6170',
      `metric key: string length 5 runs past the end of the key (byte 0 of 3)${NG_TAIL}metric key: string length 5 runs past the end of the key (byte 0 of 3)`,
    ],
    [
      'ng',
      '01 6d 03 0161 0178 0162 0179 ff01 6161',
      `tag map entry 2 name: string length 383 runs past the end of the key (byte 11 of 15)${NG_TAIL}tag map entry 2 name: string length 383 runs past the end of the key (byte 11 of 15)`,
    ],
    [
      'ng',
      '02 c328 00 00 00',
      `metric key: invalid UTF-8 in its 2 bytes (byte 1 of 6)${NG_TAIL}metric key: invalid UTF-8 in its 2 bytes (byte 1 of 6)`,
    ],
    // An encoded surrogate (CESU-8), which Java's decoder rejects too.
    [
      'ng',
      '03 eda080 00 00 00',
      `metric key: invalid UTF-8 in its 3 bytes (byte 1 of 7)${NG_TAIL}metric key: invalid UTF-8 in its 3 bytes (byte 1 of 7)`,
    ],
    [
      'ng',
      'ffffffffff00',
      `metric key: string length: varint runs over 5 bytes (byte 0 of 6)${NG_TAIL}metric key: string length: varint runs over 5 bytes (byte 0 of 6)`,
    ],
    [
      'ng',
      'ffffffff07',
      `metric key: string length: varint 2418032767 is over 2^31 - 1 (byte 0 of 5)${NG_TAIL}metric key: string length: varint 2418032767 is over 2^31 - 1 (byte 0 of 5)`,
    ],
    [
      'ng',
      '00 02 0161 0162 0161 0163 00 00',
      `tag map entry 1: duplicate name "a" (byte 6 of 12)${NG_TAIL}tag map entry 1: duplicate name "a" (byte 6 of 12)`,
    ],
    [
      'ng',
      '00 02 0162 0161 0161 0163 00 00',
      `tag map entry 1: name "a" is out of order after "b" (byte 6 of 12)${NG_TAIL}tag map entry 1: name "a" is out of order after "b" (byte 6 of 12)`,
    ],
    [
      'ng',
      '00 00 00 01',
      `base: 1 is not a multiple of the ng partition width 2147483647, so Heroic did not write it (byte 3 of 4)${NG_TAIL}1 trailing byte after the base (byte 3 of 4)`,
    ],
    [
      'ng',
      '00 00 00 00 ff',
      `1 trailing byte after the base (byte 4 of 5)${NG_TAIL}2 trailing bytes after the base (byte 3 of 5)`,
    ],
    [
      'ng',
      '00 00 00 ffffffffffffffffff7f',
      `base: 1189887617730934227071 is over 2^53 - 1, past any timestamp we read (byte 3 of 13)${NG_TAIL}10 trailing bytes after the base (byte 3 of 13)`,
    ],
    [
      'ng',
      '00 00 00 ffffffffffffffffffff00',
      `base: varint runs over 10 bytes (byte 3 of 14)${NG_TAIL}11 trailing bytes after the base (byte 3 of 14)`,
    ],
    ['legacy', '', 'series component: the data ends inside a 2-byte length (byte 0 of 0)'],
    ['legacy', '00c3 0007', 'series component: length 195 runs past the end of the key (byte 0 of 4)'],
    [
      'legacy',
      `8000${'00'.repeat(32769)}`,
      'series component: length 32768 is over 32767, which Heroic reads as a negative Java short (byte 0 of 32771)',
    ],
    [
      'legacy',
      `${cpuLegacySeries.slice(0, -2)}01${component('0000000000000000')}`,
      'series component: end-of-component byte is 0x01, not 0x00 (byte 14 of 26)',
    ],
    ['legacy', cpuLegacySeries, 'base component: the data ends inside a 2-byte length (byte 15 of 15)'],
    [
      'legacy',
      cpuLegacySeries + component('00000000'),
      'base component: length 4, where a base is 8 bytes (byte 15 of 22)',
    ],
    [
      'legacy',
      cpuLegacySeries + component('0000000000000001'),
      'base: 1 is not a multiple of the legacy partition width 4294967296, so Heroic did not write it (byte 17 of 26)',
    ],
    [
      'legacy',
      cpuLegacySeries + component('ffffffff00000000'),
      'base: -4294967296 is not a timestamp from 0 to 2^53 - 1 (byte 17 of 26)',
    ],
    [
      'legacy',
      cpuLegacySeries + component('0020000000000000'),
      'base: 9007199254740992 is not a timestamp from 0 to 2^53 - 1 (byte 17 of 26)',
    ],
    [
      'legacy',
      `${cpuLegacySeries + component('0000000000000000')}00`,
      '1 trailing byte after the base component (byte 26 of 27)',
    ],
    [
      'legacy',
      `${cpuLegacySeries}0008 0000000000000000`,
      'base component: the key ends before the end-of-component byte (byte 25 of 25)',
    ],
    [
      'legacy',
      component(component('05637075') + component('0000')) + component('0000000000000000'),
      'metric key: unknown string flag 0x05 (byte 4 of 26)',
    ],
    [
      'legacy',
      component(component('') + component('0000')) + component('0000000000000000'),
      'metric key: empty string payload, without the flag byte (byte 4 of 22)',
    ],
    [
      'legacy',
      component(component('02') + component('0000')) + component('0000000000000000'),
      'metric key: text flag 0x02 with no text (Heroic writes "" as flag 0x01) (byte 4 of 23)',
    ],
    [
      'legacy',
      component(component('0161') + component('0000')) + component('0000000000000000'),
      'metric key: 1 byte after the empty string flag (byte 5 of 24)',
    ],
    [
      'legacy',
      component(component('02ff') + component('0000')) + component('0000000000000000'),
      'metric key: invalid UTF-8 in its 1 byte (byte 5 of 24)',
    ],
    [
      'legacy',
      component(`${component('02637075') + component('0000')}00`) + component('0000000000000000'),
      'series component: 1 trailing byte inside the component (byte 14 of 27)',
    ],
    [
      'legacy',
      component(component('02637075') + component('0000' + '00')) + component('0000000000000000'),
      'tag map component: 1 trailing byte inside the component (byte 13 of 27)',
    ],
    [
      'legacy',
      component(component('02637075') + component(`0001${entry('0261')}`)) + component('0000000000000000'),
      'tag map entry 0 value: the data ends inside a 2-byte length (byte 17 of 30)',
    ],
    [
      'legacy',
      component(component('02637075') + component(`0001${entry('0261')}0009 0262`)) + component('0000000000000000'),
      'tag map entry 0 value: string length 9 runs past the end of the tag map (byte 17 of 34)',
    ],
    [
      'legacy',
      component(
        component('02637075') + component(`0002${entry('0261')}${entry('0278')}${entry('0261')}${entry('0279')}`),
      ) + component('0000000000000000'),
      'tag map entry 1: duplicate name "a" (byte 21 of 42)',
    ],
    [
      'legacy',
      // A null name reads as "", so it collides with an empty one.
      component(component('02637075') + component(`0002${entry('00')}${entry('0278')}${entry('01')}${entry('0279')}`)) +
        component('0000000000000000'),
      'tag map entry 1: duplicate name "" (byte 20 of 40)',
    ],
    [
      'legacy',
      `${component(component('02637075') + component('0000')) + component('0000000000000000').slice(0, -2)}07`,
      'base component: end-of-component byte is 0x07, not 0x00 (byte 25 of 26)',
    ],
    // An ng key is not a legacy key.
    ['legacy', NG_CPU_HEX, 'series component: length 867 runs past the end of the key (byte 0 of 28)'],
  ] as const)('%s %s', (schema, keyHex, error) => {
    expect(decodeKey(schema, fromHex(keyHex))).toEqual({ error });
  });
});
