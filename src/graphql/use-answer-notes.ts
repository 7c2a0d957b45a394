/**
 * Warnings and infos that a field's answer carries beside its data (PromQL's: Prometheus's API answers them beside
 * `data`), put in the response as `extensions.warnings` and `extensions.infos`, each `{ path, message }` naming the
 * field's place in the response. Absent when there are none, so answers without them stay as they were.
 */
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './context.js';

interface Note {
  readonly path: string;
  readonly message: string;
}

interface Notes {
  readonly warnings: Note[];
  readonly infos: Note[];
}

const notesOf = new WeakMap<GraphQLContext, Notes>();

/** Records what the field at `path` warns of, for the response of the request of `ctx`. */
export function addNotes(
  ctx: GraphQLContext,
  path: string,
  warnings: readonly string[],
  infos: readonly string[],
): void {
  if (warnings.length === 0 && infos.length === 0) return;
  let notes = notesOf.get(ctx);
  if (notes === undefined) notesOf.set(ctx, (notes = { warnings: [], infos: [] }));
  for (const message of warnings) notes.warnings.push({ path, message });
  for (const message of infos) notes.infos.push({ path, message });
}

export function useAnswerNotes(): Plugin<GraphQLContext> {
  return {
    onExecute({ args }) {
      return {
        onExecuteDone({ result, setResult }) {
          if (!('data' in result || 'errors' in result)) return;
          const notes = notesOf.get(args.contextValue);
          if (notes === undefined) return;
          setResult({
            ...result,
            extensions: {
              ...result.extensions,
              ...(notes.warnings.length > 0 ? { warnings: notes.warnings } : {}),
              ...(notes.infos.length > 0 ? { infos: notes.infos } : {}),
            },
          });
        },
      };
    },
  };
}
