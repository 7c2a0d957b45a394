/** Reading a statement's result page by page through the driver's page state, the next page asked for ahead. */
import type cassandra from 'cassandra-driver';

/**
 * The pages of one read, each asked for while the one before is consumed (one page ahead, never more), so Cassandra
 * works on the next page while Node decodes this one. A page asked for ahead fails only when the reader reaches it:
 * a reader that stopped before leaves no unhandled rejection behind.
 */
export async function* pagesAhead(
  fetch: (pageState: Buffer | undefined) => Promise<cassandra.types.ResultSet>,
): AsyncGenerator<cassandra.types.ResultSet> {
  const send = (pageState: Buffer | undefined) => {
    const sent = fetch(pageState);
    sent.catch(() => undefined);
    return sent;
  };
  let next: Promise<cassandra.types.ResultSet> | undefined = send(undefined);
  while (next !== undefined) {
    const result: cassandra.types.ResultSet = await next;
    const pageState = pageStateOf(result);
    next = pageState === undefined ? undefined : send(pageState);
    yield result;
  }
}

/** The driver's next-page token; absent on the last page. */
export function pageStateOf(result: cassandra.types.ResultSet): Buffer | undefined {
  const state = (result as unknown as { rawPageState?: Buffer }).rawPageState;
  return state === undefined || state === null ? undefined : state;
}
