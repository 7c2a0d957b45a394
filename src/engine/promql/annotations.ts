/**
 * Warnings and infos that travel beside a result (Prometheus's annotations), de-duplicated, each ending with the
 * position of the expression it is about, as Prometheus prints them.
 */
import type { PosRange } from './ast.js';

export type AnnotationLevel = 'warning' | 'info';

export class Annotations {
  readonly warnings = new Set<string>();
  readonly infos = new Set<string>();

  constructor(private readonly query: string) {}

  add(level: AnnotationLevel, message: string, pos?: PosRange): void {
    const prefix = level === 'warning' ? 'PromQL warning' : 'PromQL info';
    const text = `${prefix}: ${message}${pos === undefined ? '' : ` (${this.position(pos.start)})`}`;
    (level === 'warning' ? this.warnings : this.infos).add(text);
  }

  private position(offset: number): string {
    const before = this.query.slice(0, offset);
    const line = before.split('\n').length;
    return `${line}:${offset - before.lastIndexOf('\n')}`;
  }
}
