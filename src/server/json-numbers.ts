/**
 * Numbers as JSON text, for the answers written by hand from points' columns (REST's values, GraphQL's point lists):
 * the text JSON.stringify would write, faster for times.
 */

/**
 * A time as JSON, the text of jsonNumber. Times of this millennium (and up to 1e15) are written as two Smis, millions
 * and the rest: consecutive times share their millions, whose text V8 keeps cached, and a Smi prints several times
 * faster than a double does (a quarter of a raw answer's encoding went to its times).
 */
export function epochText(t: number): string {
  if (t >= 1e6 && t < 1e15 && Number.isInteger(t)) {
    const millions = Math.floor(t / 1e6);
    const rest = t - millions * 1e6;
    return String(millions) + (rest >= 100_000 ? '' : ZEROS[rest >= 10_000 ? 1 : rest >= 1000 ? 2 : rest >= 100 ? 3 : rest >= 10 ? 4 : 5]) + String(rest);
  }
  return jsonNumber(t);
}

/** Zeros that pad the rest of a time to six digits, by how many it needs. */
const ZEROS = ['', '0', '00', '000', '0000', '00000'];

/**
 * Every double and time of an answer is written through here. KairosDB's org.json refuses NaN and infinities with
 * a 500; JSON has no word for them, so they answer null (the engine keeps times within src/epoch-ms.ts anyway).
 */
export function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}
