/** A span attribute value, as OpenTelemetry takes them. */
export type SpanAttributeValue = string | number | boolean | readonly string[];
export type SpanAttributes = Readonly<Record<string, SpanAttributeValue>>;

export interface SpanOptions {
  /** The span this one runs under; a new trace starts without one. */
  readonly parent?: TraceSpan;
  /** When the work began, if before now (a model call reported once it has ended). */
  readonly startTime?: Date;
  readonly attributes?: SpanAttributes;
}

/** One span being recorded. */
export interface TraceSpan {
  setAttributes(attributes: SpanAttributes): void;
  /** A point in time within the span, with what happened there. */
  addEvent(name: string, attributes?: SpanAttributes): void;
  /** Marks the span as failed; `message` is crewd's own words, never a provider's text. */
  fail(message: string): void;
  end(endTime?: Date): void;
}

/**
 * Where crewd's traces go: the port the service and the webhook worker record spans through, so neither imports a
 * tracing library. Absent when tracing is off, so nothing is recorded or even loaded then.
 */
export interface Tracing {
  startSpan(name: string, options?: SpanOptions): TraceSpan;
  /** Sends what is still buffered and stops; called once at shutdown. */
  shutdown(): Promise<void>;
}
