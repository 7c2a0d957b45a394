/**
 * The aggregators that pick samples: topk, bottomk, limitk and limit_ratio. They keep a heap the way Prometheus's
 * container/heap does, so ties and NaNs choose the same samples and come out in the same order.
 */
import { labelsKey } from '../labels.js';
import type { Sample } from '../values.js';
import type { SelectAggregator } from './aggregation-types.js';

type Less = (a: Sample, b: Sample) => boolean;

/** topk's heap order: NaN below everything, so a NaN is the first to be replaced. */
const lessValue: Less = (a, b) => Number.isNaN(a.value) || a.value < b.value;
const moreValue: Less = (a, b) => Number.isNaN(a.value) || a.value > b.value;

function up(h: Sample[], j: number, less: Less): void {
  while (j > 0) {
    const i = (j - 1) >> 1;
    if (!less(h[j]!, h[i]!)) break;
    [h[i], h[j]] = [h[j]!, h[i]!];
    j = i;
  }
}

function down(h: Sample[], i0: number, less: Less): boolean {
  let i = i0;
  for (;;) {
    const j1 = 2 * i + 1;
    if (j1 >= h.length) break;
    let j = j1;
    if (j1 + 1 < h.length && less(h[j1 + 1]!, h[j1]!)) j = j1 + 1;
    if (!less(h[j]!, h[i]!)) break;
    [h[i], h[j]] = [h[j]!, h[i]!];
    i = j;
  }
  return i > i0;
}

/** Go's sort.Sort on few elements is an insertion sort: stable over the heap's array order. */
function insertionSort(h: Sample[], less: Less): Sample[] {
  for (let i = 1; i < h.length; i++)
    for (let j = i; j > 0 && less(h[j]!, h[j - 1]!); j--) [h[j], h[j - 1]] = [h[j - 1]!, h[j]!];
  return h;
}

function heapSelect(
  samples: readonly Sample[],
  k: number,
  less: Less,
  replaces: (candidate: Sample, root: Sample) => boolean,
): Sample[] {
  const heap: Sample[] = [];
  for (const s of samples) {
    if (heap.length < k) {
      heap.push(s);
      up(heap, heap.length - 1, less);
    } else if (replaces(s, heap[0]!)) {
      heap[0] = s;
      if (k > 1 && !down(heap, 0, less)) up(heap, 0, less);
    }
  }
  // The answer is the heap sorted the other way round: largest first for topk, smallest first for bottomk.
  return insertionSort(heap, (a, b) => less(b, a));
}

function clampK(param: number, count: number): number {
  return Math.min(Math.trunc(param), count);
}

/** A stable pseudo-random position in [0, 1) per label set: which series a ratio keeps does not vary by step. */
function sampleOffset(sample: Sample): number {
  let h = 0x811c9dc5;
  for (const ch of labelsKey(sample.labels)) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h / 0x100000000;
}

export const SELECT_AGGREGATIONS: readonly SelectAggregator[] = [
  {
    name: 'topk',
    kind: 'select',
    param: 'scalar',
    select: (samples, param) =>
      heapSelect(
        samples,
        clampK(param, samples.length),
        lessValue,
        (s, root) => root.value < s.value || (Number.isNaN(root.value) && !Number.isNaN(s.value)),
      ),
  },
  {
    name: 'bottomk',
    kind: 'select',
    param: 'scalar',
    select: (samples, param) =>
      heapSelect(
        samples,
        clampK(param, samples.length),
        moreValue,
        (s, root) => root.value > s.value || (Number.isNaN(root.value) && !Number.isNaN(s.value)),
      ),
  },
  {
    name: 'limitk',
    kind: 'select',
    param: 'scalar',
    experimental: true,
    select: (samples, param) => {
      const heap: Sample[] = [];
      for (const s of samples.slice(0, clampK(param, samples.length))) {
        heap.push(s);
        up(heap, heap.length - 1, lessValue);
      }
      return heap;
    },
  },
  {
    name: 'limit_ratio',
    kind: 'select',
    param: 'scalar',
    experimental: true,
    select: (samples, param) => {
      const ratio = Math.max(-1, Math.min(1, param));
      // A positive ratio keeps offsets below it, a negative one the complement: r and r-1 split the series.
      return samples.filter((s) => (ratio >= 0 ? sampleOffset(s) < ratio : sampleOffset(s) >= 1 + ratio));
    },
  },
];
