/**
 * Runs operations against the execution schema (src/graphql/point-answers.ts), where point lists are one built value
 * each, while yoga parses, validates and limits them against the contract. Introspection must describe the contract:
 * a query's `__schema` and `__type` fields (only a query's root has them) run against the contract, the rest of it
 * against the execution schema, and the two answers are put back together in the query's order.
 */
import {
  getOperationAST,
  getVariableValues,
  Kind,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { collectFields } from 'graphql/execution/collectFields.js';
import type { Plugin } from 'graphql-yoga';

const INTROSPECTION_ROOTS = new Set(['__schema', '__type']);

export function useExecutionSchema(execution: GraphQLSchema): Plugin {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args: ExecutionArgs) => {
        const split = introspectionSplit(args);
        if (split === undefined) return executeFn({ ...args, schema: execution });
        if (split.data.length === 0) return executeFn(args);
        return executeSplit(
          args,
          split,
          (part) => executeFn(part) as Promise<ExecutionResult> | ExecutionResult,
          execution,
        );
      });
    },
    onSubscribe({ subscribeFn, setSubscribeFn }) {
      setSubscribeFn((args: ExecutionArgs) => subscribeFn({ ...args, schema: execution }));
    },
  };
}

/** A query's root fields by response key: those that introspect and the others, each in the query's order. */
interface Split {
  readonly keys: readonly string[];
  readonly introspection: readonly FieldNode[];
  readonly data: readonly FieldNode[];
}

/** The split of a query that introspects; undefined when it does not (or when the executor will refuse its variables). */
function introspectionSplit(args: ExecutionArgs): Split | undefined {
  const operation = getOperationAST(args.document, args.operationName);
  if (operation?.operation !== 'query') return undefined;
  const fragments = fragmentsOf(args.document);
  if (!mayIntrospect(operation.selectionSet, fragments, new Set())) return undefined;
  const variables = getVariableValues(args.schema, operation.variableDefinitions ?? [], args.variableValues ?? {});
  if (variables.errors !== undefined) return undefined;
  const fields = collectFields(
    args.schema,
    fragments,
    variables.coerced,
    args.schema.getQueryType()!,
    operation.selectionSet,
  );
  const split = { keys: [...fields.keys()], introspection: [] as FieldNode[], data: [] as FieldNode[] };
  for (const nodes of fields.values())
    (INTROSPECTION_ROOTS.has(nodes[0]!.name.value) ? split.introspection : split.data).push(...nodes);
  return split.introspection.length === 0 ? undefined : split;
}

/** Whether a root selection names `__schema` or `__type`, directly or through fragments; @skip and @include aside. */
function mayIntrospect(
  selectionSet: SelectionSetNode,
  fragments: Record<string, FragmentDefinitionNode>,
  seen: Set<string>,
): boolean {
  return selectionSet.selections.some((selection) => {
    if (selection.kind === Kind.FIELD) return INTROSPECTION_ROOTS.has(selection.name.value);
    if (selection.kind === Kind.INLINE_FRAGMENT) return mayIntrospect(selection.selectionSet, fragments, seen);
    const name = selection.name.value;
    if (seen.has(name) || fragments[name] === undefined) return false;
    seen.add(name);
    return mayIntrospect(fragments[name].selectionSet, fragments, seen);
  });
}

async function executeSplit(
  args: ExecutionArgs,
  split: Split,
  execute: (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult,
  execution: GraphQLSchema,
): Promise<ExecutionResult> {
  const [described, answered] = await Promise.all([
    execute({ ...args, document: withRootFields(args, split.introspection) }),
    execute({ ...args, schema: execution, document: withRootFields(args, split.data) }),
  ]);
  const errors = [...(described.errors ?? []), ...(answered.errors ?? [])];
  const extensions =
    described.extensions === undefined && answered.extensions === undefined
      ? {}
      : { extensions: { ...described.extensions, ...answered.extensions } };
  // A failed non-null root field nulls the whole of `data`, whichever part it was in.
  if (described.data == null || answered.data == null) return { data: null, errors, ...extensions };
  const data: Record<string, unknown> = {};
  for (const key of split.keys)
    data[key] = Object.hasOwn(described.data, key) ? described.data[key] : answered.data[key];
  return errors.length === 0 ? { data, ...extensions } : { data, errors, ...extensions };
}

/** The document with its operation selecting only `fields` (already collected: fragments resolved, directives true). */
function withRootFields(args: ExecutionArgs, fields: readonly FieldNode[]): DocumentNode {
  const operation = getOperationAST(args.document, args.operationName)!;
  const narrowed: OperationDefinitionNode = {
    ...operation,
    selectionSet: { kind: Kind.SELECTION_SET, selections: fields },
  };
  return {
    ...args.document,
    definitions: args.document.definitions.map((definition) => (definition === operation ? narrowed : definition)),
  };
}

function fragmentsOf(document: DocumentNode): Record<string, FragmentDefinitionNode> {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  return fragments;
}
