import { z } from 'zod';
import type { EventStreamTarget } from '../domain/execution.ts';

/**
 * Longest webhook URL accepted (characters): far above the URLs of Slack, Teams, Discord or Zapier hooks, and
 * small enough that the URLs an execution keeps, shows and sends with each message stay small.
 */
export const maxWebhookUrlLength = 2048;

/** True for an absolute `http:` or `https:` URL. */
export function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
}

const urlMessage = 'must be an absolute http(s) URL';

/** A webhook URL: absolute http(s), at most `maxWebhookUrlLength` characters. */
const webhookUrl = z
  .string()
  .max(maxWebhookUrlLength)
  // Past the limit only the length is reported: parsing a megabyte to say more is wasted.
  .refine((value) => value.length > maxWebhookUrlLength || isHttpUrl(value), urlMessage);

/** A webhook URL field; `null` means the same as absent (Semantic Kernel sends nulls). */
export const optionalWebhookUrl = webhookUrl
  .nullable()
  .optional()
  .describe(
    `Absolute http(s) URL of at most ${maxWebhookUrlLength} characters; null or absent means no notifications`,
  );

// Header safety (no CR/LF or other control characters) is checked by the webhooks module's assertCredentialsSafe
// once the body has this shape, so the rule lives in one place.
const credential = z.string().min(1);

export const webhookAuthenticationSchema = z
  .discriminatedUnion('strategy', [
    z.object({ strategy: z.literal('bearer'), token: credential }),
    z.object({
      strategy: z.literal('basic'),
      // Basic authentication joins the two with a colon, so a colon in the user name would be ambiguous.
      username: credential.refine((value) => !value.includes(':'), 'must not contain ":"'),
      password: z.string(),
    }),
  ])
  .describe('How crewd authenticates to the human input webhook');

export const humanInputWebhookSchema = z
  .object({
    url: webhookUrl,
    authentication: webhookAuthenticationSchema.nullable().optional(),
  })
  .nullable()
  .optional()
  .describe('Receives a notification when a task waits for human feedback');

export type HumanInputWebhookField = z.infer<typeof humanInputWebhookSchema>;

export const eventStreamSchema = z
  .object({
    url: webhookUrl,
    events: z
      .array(z.string().min(1))
      .optional()
      .describe('crewAI event types to send, e.g. task_completed; absent sends every type crewd streams'),
    realtime: z
      .boolean()
      .optional()
      .describe('true sends each event in its own request; otherwise the events of one step travel together'),
    authentication: webhookAuthenticationSchema.nullable().optional(),
  })
  .nullable()
  .optional()
  .describe('Event streaming as on the hosted platform: crewAI events POSTed as {"events": [...]}');

export type EventStreamField = z.infer<typeof eventStreamSchema>;

export function toEventStreamTarget(field: EventStreamField): EventStreamTarget | null {
  if (field === null || field === undefined) return null;
  const target = { url: field.url, types: field.events ?? null, realtime: field.realtime ?? false };
  const authentication = field.authentication ?? undefined;
  return authentication === undefined ? target : { ...target, authentication };
}
