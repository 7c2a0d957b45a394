/**
 * A query's planned partitions as series (type group and tag set, in KairosDB's canonical order) and the row groups
 * KairosDB makes of them: by type first, then by the tag group-by, or one per stored series.
 */
import { dictOf } from '../lib/dict.js';
import { encodeTagString } from '../model/tag-string.js';
import type { Partition, PartitionKind } from '../model/series.js';
import type { GroupType } from './aggregators/aggregator.js';
import type { GroupBys } from './group-by/group-by.js';
import { compareStrings } from './points.js';
import type { RowGroup, SeriesEntry } from './pipeline.js';

/** The planned partitions as series (type group + tag set), in canonical order: type, then KairosDB tag string. */
export function seriesOf(partitions: readonly Partition[]): SeriesEntry[] {
  const byId = new Map<string, { type: GroupType; tagString: string; keys: Partition[] }>();
  for (const key of partitions) {
    const type = groupTypeOf(key.kind);
    const tagString = encodeTagString(key.tags);
    const id = `${type}\u0000${tagString}`;
    const entry = byId.get(id);
    if (entry) entry.keys.push(key);
    else byId.set(id, { type, tagString, keys: [key] });
  }
  return [...byId.values()]
    .sort((a, b) => compareStrings(a.type, b.type) || compareStrings(a.tagString, b.tagString))
    .map((entry, rank) => ({
      rank,
      type: entry.type,
      tags: entry.keys[0]!.tags,
      tagString: entry.tagString,
      partitions: entry.keys.sort((a, b) => a.rowTime - b.rowTime || compareStrings(a.dataType, b.dataType)),
      seen: false,
    }));
}

/**
 * KairosDB groups rows by type first (sorted: complex, number, text), then by the tag group-by, whose groups sort by
 * the concatenated names and values of their tags (`getTagsKey`); a missing tag counts as ''.
 */
export function rowGroupsOf(series: readonly SeriesEntry[], groupBys: GroupBys): RowGroup[] {
  if (groupBys.series) return storedSeriesGroups(series);
  const names = groupBys.tags ?? [];
  const groups = new Map<
    string,
    { type: GroupType; tagGroup: Record<string, string>; sortKey: string; series: SeriesEntry[] }
  >();
  for (const s of series) {
    const values = names.map((name) => (Object.hasOwn(s.tags, name) ? s.tags[name]! : ''));
    // The key string has no separators, so distinct groups can share one; the id keeps them apart.
    const id = JSON.stringify([s.type, values]);
    let group = groups.get(id);
    if (group === undefined) {
      const tagGroup = dictOf(names.map((name, i) => [name, values[i]!]));
      const sortKey = names.map((name, i) => name + values[i]!).join('');
      groups.set(id, (group = { type: s.type, tagGroup, sortKey, series: [] }));
    }
    group.series.push(s);
  }
  return [...groups.entries()]
    .sort(
      ([idA, a], [idB, b]) =>
        compareStrings(a.type, b.type) || compareStrings(a.sortKey, b.sortKey) || compareStrings(idA, idB),
    )
    .map(([, g]) => ({
      type: g.type,
      tagGroup: groupBys.tags === undefined ? undefined : g.tagGroup,
      series: g.series,
    }));
}

/**
 * The internal `series` group-by: one group per stored tag set, sorted by KairosDB's tag string, its data types
 * merged as GraphQL's per-series view always showed them. A tag set stored as text and as numbers is a text group
 * (so number-only aggregators pass it through untouched, as KairosDB does for text).
 */
function storedSeriesGroups(series: readonly SeriesEntry[]): RowGroup[] {
  const byTags = new Map<string, SeriesEntry[]>();
  for (const s of series) {
    const same = byTags.get(s.tagString);
    if (same) same.push(s);
    else byTags.set(s.tagString, [s]);
  }
  return [...byTags.keys()].sort(compareStrings).map((tagString) => {
    const members = byTags.get(tagString)!;
    const types = new Set(members.map((s) => s.type));
    const type: GroupType = types.has('text') ? 'text' : types.has('complex') ? 'complex' : 'number';
    return { type, tagGroup: undefined, series: members };
  });
}

function groupTypeOf(kind: PartitionKind): GroupType {
  return kind === 'string' ? 'text' : kind === 'complex' ? 'complex' : 'number';
}
