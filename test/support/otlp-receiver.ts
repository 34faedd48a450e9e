import { startScriptedReceiver, type ScriptedReceiver } from './scripted-receiver.ts';

/** A span as an OTLP/HTTP JSON export carries it, with its attributes decoded to plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a trace's root span. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Record<string, unknown>;
  /** 0 unset, 1 ok, 2 error */
  readonly statusCode: number;
  readonly statusMessage: string | undefined;
  readonly events: readonly string[];
  /** The `service.name` of the resource the span came with. */
  readonly service: string;
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT (spans arrive at `/v1/traces`). */
  readonly url: string;
  /** Every span received so far, in order of arrival. */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

interface AnyValue {
  readonly stringValue?: string;
  readonly intValue?: number | string;
  readonly doubleValue?: number;
  readonly boolValue?: boolean;
  readonly arrayValue?: { readonly values?: readonly AnyValue[] };
}
interface KeyValue {
  readonly key: string;
  readonly value: AnyValue;
}
interface JsonSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly startTimeUnixNano: string | number;
  readonly endTimeUnixNano: string | number;
  readonly attributes?: readonly KeyValue[];
  readonly status?: { readonly code?: number; readonly message?: string };
  readonly events?: readonly { readonly name: string }[];
}
interface ExportRequest {
  readonly resourceSpans?: readonly {
    readonly resource?: { readonly attributes?: readonly KeyValue[] };
    readonly scopeSpans?: readonly { readonly spans?: readonly JsonSpan[] }[];
  }[];
}

/** A loopback OTLP/HTTP receiver that decodes JSON exports (OTEL_EXPORTER_OTLP_PROTOCOL=http/json). */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver: ScriptedReceiver = await startScriptedReceiver();
  receiver.answer('/v1/traces', (response) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
  );
  return {
    url: receiver.url,
    spans: () => receiver.on('/v1/traces').flatMap((request) => decode(request.body as ExportRequest)),
    close: () => receiver.close(),
  };
}

function decode(body: ExportRequest): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resource) => {
    const service = String(attributesOf(resource.resource?.attributes)['service.name']);
    return (resource.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        startNs: BigInt(span.startTimeUnixNano),
        endNs: BigInt(span.endTimeUnixNano),
        attributes: attributesOf(span.attributes),
        statusCode: span.status?.code ?? 0,
        statusMessage: span.status?.message,
        events: (span.events ?? []).map((event) => event.name),
        service,
      })),
    );
  });
}

function attributesOf(list: readonly KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, valueOf(entry.value)]));
}

function valueOf(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}
