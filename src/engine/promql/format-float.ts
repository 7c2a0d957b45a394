/**
 * Numbers printed as Prometheus (Go) prints them: in label values (count_values, strconv's 'f' format) and in
 * messages (fmt's %g).
 */

/** Go's %g (shortest digits; exponent form below 1e-4 and from 1e6). */
export function formatG(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent >= -4 && exponent < 6) return formatFloat(value);
  return `${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

/** Go's strconv.FormatFloat(v, 'f', -1, 64): the shortest digits that read back, never in exponent form. */
export function formatFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  const text = String(value);
  if (!text.includes('e')) return text;
  const [mantissa, exponentText] = text.split('e') as [string, string];
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const point =
    (mantissa.replace('-', '').indexOf('.') === -1
      ? mantissa.replace('-', '').length
      : mantissa.replace('-', '').indexOf('.')) + exponent;
  const body =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? digits + '0'.repeat(point - digits.length)
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${body}` : body;
}
