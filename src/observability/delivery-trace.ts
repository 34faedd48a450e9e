import type { DeliveryAttempt, DeliveryOutcome, OutboxMessage } from '../store/store.ts';
import type { Tracing } from './tracing.ts';

/**
 * One webhook attempt as a span of its own trace (deliveries run apart from the execution, often much later). The
 * target shows as its host only: a URL's path or credentials may be secret.
 */
export function traceDeliveryAttempt(
  tracing: Tracing,
  message: OutboxMessage,
  attempt: DeliveryAttempt,
  outcome: DeliveryOutcome,
): void {
  const host = URL.canParse(message.url) ? new URL(message.url).hostname : 'unknown';
  const span = tracing.startSpan(`webhook ${message.kind}`, {
    startTime: attempt.at,
    attributes: {
      'crewd.execution.id': message.executionId,
      'crewd.webhook.kind': message.kind,
      'crewd.webhook.id': message.id,
      'crewd.webhook.attempt': attempt.attempt,
      'crewd.webhook.outcome': outcome.kind,
      'http.request.method': 'POST',
      'server.address': host,
      ...(attempt.statusCode === null ? {} : { 'http.response.status_code': attempt.statusCode }),
    },
  });
  if (attempt.error !== null) span.fail(attempt.error);
  span.end(new Date(attempt.at.getTime() + attempt.durationMs));
}
