import { context, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { SpanAttributes, SpanOptions, TraceSpan, Tracing } from './tracing.ts';
import type { TracingSettings } from './tracing-settings.ts';

/**
 * The tracing port over OpenTelemetry's SDK, exporting over OTLP/HTTP in batches. The provider is crewd's own, not
 * registered globally, so crewd's spans never mix with those of code that shares the process.
 */
export function createOtlpTracing(settings: TracingSettings): Tracing {
  const exporter =
    settings.protocol === 'http/json'
      ? new JsonExporter({ url: settings.url })
      : new ProtobufExporter({ url: settings.url });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
    spanProcessors: [
      new BatchSpanProcessor(
        exporter,
        settings.scheduleDelayMs === undefined ? {} : { scheduledDelayMillis: settings.scheduleDelayMs },
      ),
    ],
  });
  const tracer = provider.getTracer('crewd');
  return {
    startSpan: (name, options) => new OtelSpan(tracer, name, options ?? {}),
    shutdown: () => provider.shutdown(),
  };
}

class OtelSpan implements TraceSpan {
  readonly span: Span;

  constructor(tracer: Tracer, name: string, options: SpanOptions) {
    const parent = options.parent instanceof OtelSpan ? options.parent.span : undefined;
    this.span = tracer.startSpan(
      name,
      {
        ...(options.startTime === undefined ? {} : { startTime: options.startTime }),
        ...(options.attributes === undefined ? {} : { attributes: mutable(options.attributes) }),
        ...(parent === undefined ? { root: true } : {}),
      },
      parent === undefined ? context.active() : trace.setSpan(context.active(), parent),
    );
  }

  setAttributes(attributes: SpanAttributes): void {
    this.span.setAttributes(mutable(attributes));
  }

  addEvent(name: string, attributes?: SpanAttributes): void {
    this.span.addEvent(name, attributes === undefined ? undefined : mutable(attributes));
  }

  fail(message: string): void {
    this.span.setStatus({ code: SpanStatusCode.ERROR, message });
  }

  end(endTime?: Date): void {
    this.span.end(endTime);
  }
}

/** OpenTelemetry's attribute type takes mutable arrays; ours are read-only. */
function mutable(attributes: SpanAttributes): Record<string, string | number | boolean | string[]> {
  const copy: Record<string, string | number | boolean | string[]> = {};
  for (const [key, value] of Object.entries(attributes)) {
    copy[key] = typeof value === 'object' ? value.slice() : value;
  }
  return copy;
}
