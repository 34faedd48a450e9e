import type { DeliveryRecord } from '../store/store.ts';
import type { DeliveryList } from './response-schemas.ts';
import { withoutCredentials } from './webhook-url-view.ts';

type DeliveryView = DeliveryList['items'][number];

/** A webhook message and its attempts as `/executions/{id}/deliveries` shows them. */
export function toDeliveryView(record: DeliveryRecord): DeliveryView {
  return {
    id: record.id,
    kind: record.kind,
    url: withoutCredentials(record.url),
    status: record.status,
    created_at: record.createdAt.toISOString(),
    attempts: record.attempts.map((attempt) => ({
      attempt: attempt.attempt,
      at: attempt.at.toISOString(),
      status_code: attempt.statusCode,
      error: attempt.error,
      duration_ms: attempt.durationMs,
    })),
  };
}
