/**
 * label_replace and label_join: they rewrite one label of every series (over all steps at once); setting
 * `__name__` keeps the name that delayed removal would drop. Series that end up alike are merged, or refused when
 * they overlap in time.
 */
import { type Labels, labelValue, METRIC_NAME, setLabel } from '../labels.js';
import { isValidLabelName } from '../lexer.js';
import { compileAnchored } from '../matcher.js';
import { PromqlError } from '../promql-error.js';
import type { StepSeries } from '../values.js';
import type { SeriesFunction } from './function-types.js';
import { mergeSameLabels } from './merge-series.js';

/** Go's regexp.Expand: `$1`, `${1}`, `$name`, `${name}`, `$$`; a name takes every following word character. */
function expandTemplate(template: string, match: RegExpExecArray): string {
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c !== '$' || i + 1 >= template.length) {
      out += c;
      continue;
    }
    if (template[i + 1] === '$') {
      out += '$';
      i++;
      continue;
    }
    let name: string | undefined;
    let end = i;
    if (template[i + 1] === '{') {
      const close = template.indexOf('}', i + 2);
      const inner = close === -1 ? '' : template.slice(i + 2, close);
      if (/^[a-zA-Z0-9_]+$/.test(inner)) {
        name = inner;
        end = close;
      }
    } else {
      const word = /^[a-zA-Z0-9_]+/.exec(template.slice(i + 1))?.[0];
      if (word !== undefined) {
        name = word;
        end = i + word.length;
      }
    }
    if (name === undefined) {
      out += c;
      continue;
    }
    out += (/^[0-9]+$/.test(name) ? match[Number(name)] : match.groups?.[name]) ?? '';
    i = end;
  }
  return out;
}

function relabel(series: StepSeries[], dst: string, labelsOf: (labels: Labels) => string | undefined): StepSeries[] {
  return mergeSameLabels(
    series.map((s) => {
      const value = labelsOf(s.labels);
      if (value === undefined) return s;
      return { ...s, labels: setLabel(s.labels, dst, value), dropName: dst === METRIC_NAME ? false : s.dropName };
    }),
  );
}

export const LABEL_FUNCTIONS: readonly SeriesFunction[] = [
  {
    name: 'label_replace',
    kind: 'series',
    argTypes: ['vector', 'string', 'string', 'string', 'string'],
    returnType: 'vector',
    evalSeries: (series, [dst, replacement, src, regexText]) => {
      let regex: RegExp;
      try {
        regex = compileAnchored(regexText!);
      } catch {
        throw new PromqlError('bad_data', `invalid regular expression in label_replace(): ${regexText}`);
      }
      if (!isValidLabelName(dst!))
        throw new PromqlError('execution', `invalid destination label name in label_replace(): ${dst}`);
      return relabel(series, dst!, (labels) => {
        const match = regex.exec(labelValue(labels, src!));
        return match === null ? undefined : expandTemplate(replacement!, match);
      });
    },
  },
  {
    name: 'label_join',
    kind: 'series',
    argTypes: ['vector', 'string', 'string', 'string'],
    variadic: -1,
    returnType: 'vector',
    evalSeries: (series, [dst, separator, ...sources]) => {
      for (const src of sources)
        if (!isValidLabelName(src))
          throw new PromqlError('execution', `invalid source label name in label_join(): ${src}`);
      if (!isValidLabelName(dst!))
        throw new PromqlError('execution', `invalid destination label name in label_join(): ${dst}`);
      return relabel(series, dst!, (labels) => sources.map((src) => labelValue(labels, src)).join(separator));
    },
  },
];
