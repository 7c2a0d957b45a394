/**
 * The query model without the field names its parser attached to each part (`fields`, which hold functions): for
 * tests that compare what a query means, while the names are tested on their own.
 */
export function withoutFields<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutFields) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'fields')
      .map(([key, v]) => [key, withoutFields(v)]),
  ) as T;
}
