/**
 * Where a process spent its CPU, from a V8 .cpuprofile (written by `node --cpu-prof`): self time by function and by
 * the file it is in, the top ones. Enough to tell decoding from merging from aggregating from writing the answer.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileSummary {
  /** Sampled ms in all, idle and garbage collection included. */
  readonly totalMs: number;
  readonly idleMs: number;
  readonly byFunction: readonly { readonly name: string; readonly ms: number }[];
  readonly byFile: readonly { readonly name: string; readonly ms: number }[];
}

export function summarizeCpuProfile(path: string, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; the time a sample stands for is the delta that follows it.
  for (let i = 0; i < profile.samples.length; i++) {
    const next = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(profile.samples[i]!, (selfUs.get(profile.samples[i]!) ?? 0) + next);
  }
  const fn = new Map<string, number>();
  const file = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    totalUs += us;
    if (functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    const where = url === '' ? functionName : shortPath(url);
    const name = `${functionName || '(anonymous)'} ${url === '' ? '' : `${where}:${lineNumber + 1}`}`.trim();
    fn.set(name, (fn.get(name) ?? 0) + us);
    file.set(where, (file.get(where) ?? 0) + us);
  }
  const ranked = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000 }));
  return { totalMs: totalUs / 1000, idleMs: idleUs / 1000, byFunction: ranked(fn), byFile: ranked(file) };
}

/** dist/… and node_modules/<package>/… rather than a whole file URL. */
function shortPath(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) return path.slice(modules + 1);
  const dist = path.lastIndexOf('/dist/');
  return dist >= 0 ? path.slice(dist + 1) : path;
}

export function formatProfileSummary(summary: ProfileSummary): string {
  const busy = summary.totalMs - summary.idleMs;
  const line = ({ name, ms }: { name: string; ms: number }) =>
    `  ${ms.toFixed(0).padStart(7)} ms ${((100 * ms) / busy).toFixed(1).padStart(5)}%  ${name}`;
  return [
    `busy ${busy.toFixed(0)} ms of ${summary.totalMs.toFixed(0)} ms sampled; self time by file:`,
    ...summary.byFile.map(line),
    'by function:',
    ...summary.byFunction.map(line),
  ].join('\n');
}
