/**
 * The execution schema's one opaque scalar: the lists that their resolvers build whole (point-answers.ts) are typed
 * `BuiltList!` in it, so the executor passes them through to the answer writer instead of completing each item.
 */
import { GraphQLScalarType, Kind, visit, type DocumentNode, type NonNullTypeNode } from 'graphql';
import type { JsonPieces } from '../http/answer-writer.js';

/** The fields whose lists their resolvers build whole, by type: in the execution schema each is a `BuiltList!`. */
export const BUILT_LISTS: Readonly<Record<string, readonly string[]>> = {
  Query: ['rows'],
  Series: ['points'],
  PointColumns: ['time', 'epochMs', 'value', 'long', 'text', 'imaginary', 'type'],
};

/** A list its resolver made (JsonPieces): the executor passes it on as it is. It is never an input. */
export const BuiltListScalar = new GraphQLScalarType<JsonPieces, JsonPieces>({
  name: 'BuiltList',
  serialize: (value) => value as JsonPieces,
  parseValue() {
    throw new TypeError('BuiltList is an output type');
  },
  parseLiteral() {
    throw new TypeError('BuiltList is an output type');
  },
});

const BUILT_LIST_TYPE: NonNullTypeNode = {
  kind: Kind.NON_NULL_TYPE,
  type: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: BuiltListScalar.name } },
};

/** The contract's type definitions with every field of BUILT_LISTS typed `BuiltList!`; throws when one is missing. */
export function executionTypeDefs(contract: DocumentNode): DocumentNode {
  const replaced = new Set<string>();
  const execution = visit(contract, {
    ObjectTypeDefinition(node) {
      const built = BUILT_LISTS[node.name.value];
      if (built === undefined) return undefined;
      const fields = node.fields?.map((field) => {
        if (!built.includes(field.name.value)) return field;
        replaced.add(`${node.name.value}.${field.name.value}`);
        return { ...field, type: BUILT_LIST_TYPE };
      });
      return { ...node, fields };
    },
  });
  const missing = Object.entries(BUILT_LISTS)
    .flatMap(([type, fields]) => fields.map((field) => `${type}.${field}`))
    .filter((f) => !replaced.has(f));
  if (missing.length > 0) throw new Error(`BUILT_LISTS names fields schema.graphql lacks: ${missing.join(', ')}`);
  const scalar = { kind: Kind.SCALAR_TYPE_DEFINITION, name: { kind: Kind.NAME, value: BuiltListScalar.name } } as const;
  return { ...execution, definitions: [...execution.definitions, scalar] };
}

/** A point's field (or the whole point) as read from its run's columns. */
