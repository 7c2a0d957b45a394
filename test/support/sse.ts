/**
 * A GraphQL-over-SSE client for tests (the graphql-sse protocol's distinct connections mode, as yoga serves it): one
 * POST per subscription, its `next` events read one at a time, closed by aborting the request.
 */
export interface SseEvent {
  readonly data?: Record<string, unknown> | null;
  readonly errors?: { message: string; extensions?: Record<string, unknown> }[];
  readonly extensions?: Record<string, unknown>;
}

export interface Subscription {
  readonly status: number;
  /** The next `next` event; rejects when the stream completes or fails first, or after `timeoutMs`. */
  next(timeoutMs?: number): Promise<SseEvent>;
  close(): void;
}

export async function subscribe(
  url: string,
  query: string,
  variables?: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Subscription> {
  const abort = new AbortController();
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify({ query, ...(variables ? { variables } : {}) }),
    signal: abort.signal,
  });
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.startsWith('text/event-stream')) {
    // A refusal before the stream starts is a plain GraphQL response.
    const body = (await response.json()) as SseEvent;
    return { status: response.status, next: async () => body, close: () => undefined };
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const events: SseEvent[] = [];
  let ended = false;
  const pump = async (): Promise<void> => {
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      return;
    }
    buffer += value;
    for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const lines = block.split('\n');
      const event = lines
        .find((l) => l.startsWith('event:'))
        ?.slice(6)
        .trim();
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('\n');
      if (event === 'next') events.push(JSON.parse(data) as SseEvent);
      if (event === 'complete') ended = true;
    }
  };
  return {
    status: response.status,
    async next(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length === 0) {
        if (ended) throw new Error('the subscription completed');
        if (Date.now() > deadline) throw new Error(`no event within ${timeoutMs} ms`);
        await Promise.race([pump(), new Promise((resolve) => setTimeout(resolve, Math.max(1, deadline - Date.now())))]);
      }
      return events.shift()!;
    },
    close: () => abort.abort(),
  };
}
