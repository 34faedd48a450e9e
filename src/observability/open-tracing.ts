import type { Tracing } from './tracing.ts';
import { readTracingSettings } from './tracing-settings.ts';

/**
 * Tracing when the OpenTelemetry variables ask for it. Off, OpenTelemetry's packages are not even loaded, and
 * nothing on the execution path records anything.
 */
export async function openTracing(
  env: Readonly<Record<string, string | undefined>>,
): Promise<Tracing | undefined> {
  const settings = readTracingSettings(env);
  if (settings === undefined) return undefined;
  const { createOtlpTracing } = await import('./otlp-tracing.ts');
  return createOtlpTracing(settings);
}
