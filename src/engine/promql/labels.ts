/**
 * Label sets: sorted, immutable lists of (name, value) pairs, with the keys the engine groups and matches by. The
 * metric name is the label `__name__`, as in Prometheus.
 */

export interface Label {
  readonly name: string;
  readonly value: string;
}

export type Labels = readonly Label[];

export const METRIC_NAME = '__name__';

/** Builds a sorted label set from a record; empty values are dropped because Prometheus treats them as absent. */
export function labelsFromRecord(record: Readonly<Record<string, string>>): Labels {
  return sortLabels(Object.entries(record).map(([name, value]) => ({ name, value })));
}

export function sortLabels(labels: Label[]): Labels {
  return labels.filter((l) => l.value !== '').sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function labelValue(labels: Labels, name: string): string {
  for (const l of labels) if (l.name === name) return l.value;
  return '';
}

/** A string that is equal for equal label sets; the separators cannot occur in valid UTF-8 text. */
export function labelsKey(labels: Labels): string {
  let key = '';
  for (const l of labels) key += `${l.name}\xff${l.value}\xfe`;
  return key;
}

/** The key of only the `names` (on) or of all but them and the metric name (ignoring, without): vector matching. */
export function signature(labels: Labels, names: readonly string[], on: boolean): string {
  let key = '';
  for (const l of labels) {
    const listed = names.includes(l.name);
    if (on ? listed : !listed && l.name !== METRIC_NAME) key += `${l.name}\xff${l.value}\xfe`;
  }
  return key;
}

export function keepLabels(labels: Labels, names: readonly string[]): Labels {
  return labels.filter((l) => names.includes(l.name));
}

export function dropLabels(labels: Labels, names: readonly string[]): Labels {
  return labels.filter((l) => !names.includes(l.name));
}

export function withoutName(labels: Labels): Labels {
  return labels.some((l) => l.name === METRIC_NAME) ? labels.filter((l) => l.name !== METRIC_NAME) : labels;
}

/** Sets (or, with an empty value, removes) one label. */
export function setLabel(labels: Labels, name: string, value: string): Labels {
  const rest = labels.filter((l) => l.name !== name);
  return value === '' ? rest : sortLabels([...rest, { name, value }]);
}

/** Prometheus's order of label sets: pairwise by name then value, a prefix first. */
export function compareLabels(a: Labels, b: Labels): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.name !== y.name) return x.name < y.name ? -1 : 1;
    if (x.value !== y.value) return x.value < y.value ? -1 : 1;
  }
  return a.length - b.length;
}

/** `{a="1", b="2"}` with the metric name in front when it is a plain identifier, as Prometheus prints series. */
export function formatLabels(labels: Labels): string {
  const name = labelValue(labels, METRIC_NAME);
  const plainName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name);
  const parts = labels
    .filter((l) => !(plainName && l.name === METRIC_NAME))
    .map((l) => `${quoteName(l.name)}=${JSON.stringify(l.value)}`);
  if (plainName) return parts.length === 0 ? name : `${name}{${parts.join(', ')}}`;
  return `{${parts.join(', ')}}`;
}

function quoteName(name: string): string {
  return /^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name) ? name : JSON.stringify(name);
}
