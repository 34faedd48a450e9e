export { createDeliveryWorker } from './delivery-worker.ts';
export type { DeliveryLogger, DeliveryWorker, DeliveryWorkerOptions } from './delivery-worker.ts';
export {
  assertCredentialsSafe,
  crewPayload,
  humanInputHeaders,
  humanInputPayload,
  stepPayload,
  taskPayload,
  validateHeaderSafe,
} from './payloads.ts';
export type { CrewPayloadFields } from './payloads.ts';
export { defaultRetrySchedule, parseRetrySchedule } from './retry-schedule.ts';
export type { RetrySchedule } from './retry-schedule.ts';
export { createWebhookSigner } from './signer.ts';
export type { WebhookSigner } from './signer.ts';
export { createGuardedAgent, isForbiddenAddress, TargetRefusedError } from './target-guard.ts';
