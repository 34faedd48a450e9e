import { Webhook } from 'standardwebhooks';
import { CrewdError } from '../domain/errors.ts';

/** Standard Webhooks headers for one attempt of one message. */
export interface WebhookHeaders {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  /** Present when a secret is configured. */
  readonly 'webhook-signature'?: string;
}

/** Builds the headers of an attempt: the id stays the same on every attempt, the timestamp is the attempt's own. */
export type WebhookSigner = (messageId: string, at: Date, body: string) => WebhookHeaders;

/**
 * Signs with the `standardwebhooks` package: `v1,<base64 HMAC-SHA256 of id.timestamp.body>`. Without a secret the
 * headers carry the id and timestamp only. A secret that is not `whsec_<base64>` throws `CONFIG_INVALID`.
 */
export function createWebhookSigner(secret: string | undefined): WebhookSigner {
  if (secret === undefined) {
    return (messageId, at) => ({ 'webhook-id': messageId, 'webhook-timestamp': unixSeconds(at) });
  }
  const webhook = openSecret(secret);
  return (messageId, at, body) => ({
    'webhook-id': messageId,
    'webhook-timestamp': unixSeconds(at),
    'webhook-signature': webhook.sign(messageId, at, body),
  });
}

function openSecret(secret: string): Webhook {
  const invalid = new CrewdError(
    'CONFIG_INVALID',
    'CREWD_WEBHOOK_SECRET must be a Standard Webhooks secret: whsec_ followed by base64',
  );
  if (!/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret)) throw invalid;
  try {
    return new Webhook(secret);
  } catch {
    throw invalid;
  }
}

function unixSeconds(at: Date): string {
  return String(Math.floor(at.getTime() / 1000));
}
