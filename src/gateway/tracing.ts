/**
 * OpenTelemetry tracing, off unless OTEL_TRACES_EXPORTER asks for it. The SDK reads the other standard variables
 * itself: the OTLP endpoint, headers and timeout (`OTEL_EXPORTER_OTLP_*`), the sampler (`OTEL_TRACES_SAMPLER` and its
 * argument), the batch processor's queue and delay (`OTEL_BSP_*`), and the service name (`OTEL_SERVICE_NAME`).
 *
 * No global tracer provider or context manager is installed: spans are handed down through the request's scope
 * (src/lib/trace.ts), so this tracer serves this gateway only.
 */
import {
  defaultTextMapGetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type { TraceAttributes, TraceSpan, Tracing } from '../lib/trace.js';
import type { Config } from './config.js';

const VERSION = '0.1.0';

/** The gateway's tracer, or undefined when tracing is off (OTEL_TRACES_EXPORTER=none, or OTEL_SDK_DISABLED=true). */
export function openTracing(
  config: Pick<Config, 'tracesExporter'>,
  env: Readonly<Record<string, string | undefined>>,
): Tracing | undefined {
  if (config.tracesExporter === 'none' || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporter: SpanExporter = config.tracesExporter === 'otlp' ? new OTLPTraceExporter() : new ConsoleSpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME?.trim() || 'kairograph',
      'service.version': VERSION,
    }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('kairograph', VERSION);
  const propagator = new W3CTraceContextPropagator();
  return {
    request(name, headers, attributes) {
      const parent = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      return new OtelSpan(tracer, tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent));
    },
    shutdown: () => provider.shutdown(),
  };
}

class OtelSpan implements TraceSpan {
  readonly recording = true;
  private ended = false;

  constructor(
    private readonly tracer: Tracer,
    private readonly span: Span,
  ) {}

  child(name: string, attributes?: TraceAttributes): TraceSpan {
    const parent = trace.setSpan(ROOT_CONTEXT, this.span);
    return new OtelSpan(this.tracer, this.tracer.startSpan(name, attributes ? { attributes } : {}, parent));
  }

  set(attributes: TraceAttributes): void {
    this.span.setAttributes(attributes);
  }

  rename(name: string): void {
    this.span.updateName(name);
  }

  fail(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
    if (typeof code === 'string') this.span.setAttribute('error.type', code);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message });
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.span.end();
  }
}
