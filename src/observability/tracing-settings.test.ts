import { describe, expect, it } from 'vitest';
import { readTracingSettings } from './tracing-settings.ts';

describe('readTracingSettings', () => {
  it('is off without an endpoint, or when the SDK or the traces exporter is turned off', () => {
    expect(readTracingSettings({})).toBeUndefined();
    expect(readTracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBeUndefined();
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(readTracingSettings({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(readTracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });

  it('sends to /v1/traces under the general endpoint, or to the traces endpoint as given', () => {
    expect(readTracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      serviceName: 'crewd',
      scheduleDelayMs: undefined,
    });
    expect(
      readTracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'crews',
        OTEL_BSP_SCHEDULE_DELAY: '200',
      }),
    ).toEqual({
      url: 'https://traces.example.com/otlp',
      protocol: 'http/json',
      serviceName: 'crews',
      scheduleDelayMs: 200,
    });
  });

  it('names the variable crewd cannot honour', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(() => readTracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      'OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL (got "collector:4318")',
    );
    expect(() => readTracingSettings({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toThrow(
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http/protobuf or http/json (got "grpc")',
    );
    expect(() => readTracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(
      'OTEL_TRACES_EXPORTER must be otlp or none (got "zipkin")',
    );
  });
});
