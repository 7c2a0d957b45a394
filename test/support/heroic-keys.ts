/**
 * Fixtures of Heroic's key tests (src/sources/heroic/): series, legacy components and map entries spelled in hex, and
 * the reference's one series and one point in both schemas.
 */
import type { HeroicSeries } from '../../src/sources/heroic/key-bytes.js';
import type { HeroicSchema } from '../../src/sources/heroic/partitions.js';

export const utf8 = (s: string): string => Buffer.from(s, 'utf8').toString('hex');
export const series = (
  key: string,
  tags: Record<string, string> = {},
  resource: Record<string, string> = {},
): HeroicSeries => ({ key, tags, resource });
/** A legacy composite component around hex bytes: u16be length, the bytes, end-of-component 0x00. */
export const component = (h: string): string => {
  const bytes = h.replace(/\s+/g, '');
  return `${(bytes.length / 2).toString(16).padStart(4, '0') + bytes}00`;
};
/** A legacy map entry string: u16be length, then the flagged payload. */
export const entry = (h: string): string => {
  const bytes = h.replace(/\s+/g, '');
  return (bytes.length / 2).toString(16).padStart(4, '0') + bytes;
};

export const SCHEMAS: readonly HeroicSchema[] = ['ng', 'legacy'];
/** 2500-01-01T00:00:00Z. */
export const YEAR_2500_MS = 16725225600000;

// Reference §2.3 and §3: one series, one point, in both schemas.
export const CPU = series('cpu', { role: 'web', host: 'a' });
export const CPU_TS = 1600000000000;
export const NG_CPU_HEX = '03 637075' + '02' + '04 686f7374 01 61' + '04 726f6c65 03 776562' + '00' + '97f9fefec62d';
export const LEGACY_CPU_HEX =
  '0024' +
  '0004 02637075 00' +
  '001a 0002 0005 02686f7374 0002 0261 0005 02726f6c65 0004 02776562 00' +
  '00' +
  '0008 0000017400000000 00';
