import { z } from 'zod';

/** True for an absolute `http:` or `https:` URL. */
export function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
}

const urlMessage = 'must be an absolute http(s) URL';

/** A webhook URL field; `null` means the same as absent (Semantic Kernel sends nulls). */
export const optionalWebhookUrl = z
  .string()
  .refine(isHttpUrl, urlMessage)
  .nullable()
  .optional()
  .describe('Absolute http(s) URL; null or absent means no notifications');

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
    url: z.string().refine(isHttpUrl, urlMessage),
    authentication: webhookAuthenticationSchema.nullable().optional(),
  })
  .nullable()
  .optional()
  .describe('Receives a notification when a task waits for human feedback');

export type HumanInputWebhookField = z.infer<typeof humanInputWebhookSchema>;
