/**
 * Spans as every layer sees them: a span makes children, takes attributes and ends, and with tracing off it is
 * NO_SPAN, which does nothing, so no layer asks whether tracing is on. Spans are passed explicitly (a request's
 * scope holds its current one) rather than through an async context: a request's queries, loaders and answer all
 * know their request, and several gateways can run side by side in one process without sharing a global.
 */

/** Values a span's attributes take: OpenTelemetry's primitive attribute values. */
export type TraceAttributes = Readonly<Record<string, string | number | boolean>>;

export interface TraceSpan {
  /** False for NO_SPAN: callers may skip computing attributes nobody records. */
  readonly recording: boolean;
  /** A span started now as this one's child. */
  child(name: string, attributes?: TraceAttributes): TraceSpan;
  set(attributes: TraceAttributes): void;
  /** Names the span anew, once what it stands for is known (a request's route). */
  rename(name: string): void;
  /** Marks the span failed with `error` (its message, and its code when it has one). */
  fail(error: unknown): void;
  /** Ends the span now; later calls do nothing. */
  end(): void;
}

export const NO_SPAN: TraceSpan = {
  recording: false,
  child: () => NO_SPAN,
  set: () => undefined,
  rename: () => undefined,
  fail: () => undefined,
  end: () => undefined,
};

/** Where spans start: the gateway's tracer, when tracing is on. */
export interface Tracing {
  /** The span of one request, the child of the caller's span when `traceparent` names one (W3C Trace Context). */
  request(name: string, headers: TraceHeaders, attributes: TraceAttributes): TraceSpan;
  /** Sends what is still buffered and stops. */
  shutdown(): Promise<void>;
}

type TraceHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** The span a request's work is the child of now: the request's, or the operation it is running. */
export interface TraceHolder {
  span: TraceSpan;
}
