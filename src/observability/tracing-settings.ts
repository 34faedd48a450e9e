import { CrewdError } from '../domain/errors.ts';

export interface TracingSettings {
  /** Where spans are POSTed: the traces endpoint, or `/v1/traces` under the general one. */
  readonly url: string;
  readonly protocol: 'http/protobuf' | 'http/json';
  readonly serviceName: string;
  /** How long spans wait to be sent together, from `OTEL_BSP_SCHEDULE_DELAY` (the exporter's default otherwise). */
  readonly scheduleDelayMs: number | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Tracing as the usual OpenTelemetry variables ask for it, or undefined when they do not: no endpoint, or
 * `OTEL_SDK_DISABLED=true`, or `OTEL_TRACES_EXPORTER=none`. A value crewd cannot honour is a `CONFIG_INVALID` error
 * naming the variable.
 */
export function readTracingSettings(env: Env): TracingSettings | undefined {
  const value = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]?.trim());
  if (value('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  if (value('OTEL_TRACES_EXPORTER')?.toLowerCase() === 'none') return undefined;
  const url = tracesUrl(value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'), value('OTEL_EXPORTER_OTLP_ENDPOINT'));
  if (url === undefined) return undefined;
  const exporter = value('OTEL_TRACES_EXPORTER');
  if (exporter !== undefined && exporter.toLowerCase() !== 'otlp') {
    throw new CrewdError('CONFIG_INVALID', `OTEL_TRACES_EXPORTER must be otlp or none (got "${exporter}")`);
  }
  const protocolName = value('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? value('OTEL_EXPORTER_OTLP_PROTOCOL');
  const protocol = protocolName ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    const name =
      value('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') === undefined
        ? 'OTEL_EXPORTER_OTLP_PROTOCOL'
        : 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL';
    throw new CrewdError('CONFIG_INVALID', `${name} must be http/protobuf or http/json (got "${protocol}")`);
  }
  const delay = value('OTEL_BSP_SCHEDULE_DELAY');
  if (delay !== undefined && !/^\d+$/.test(delay)) {
    throw new CrewdError('CONFIG_INVALID', `OTEL_BSP_SCHEDULE_DELAY must be milliseconds (got "${delay}")`);
  }
  return {
    url,
    protocol,
    serviceName: value('OTEL_SERVICE_NAME') ?? 'crewd',
    scheduleDelayMs: delay === undefined ? undefined : Number(delay),
  };
}

function tracesUrl(traces: string | undefined, general: string | undefined): string | undefined {
  if (traces !== undefined) return httpUrl(traces, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  if (general === undefined) return undefined;
  const base = httpUrl(general, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

function httpUrl(value: string, name: string): string {
  const protocol = URL.canParse(value) ? new URL(value).protocol : '';
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new CrewdError('CONFIG_INVALID', `${name} must be an http(s) URL (got "${value}")`);
  }
  return value;
}
