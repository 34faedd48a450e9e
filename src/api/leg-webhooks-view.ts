import { z } from 'zod';
import type { WebhookTargets } from '../domain/execution.ts';
import { withoutCredentials } from './webhook-url-view.ts';

/**
 * The task, step and crew URLs and the event stream of the execution's current leg, shaped as a kickoff body names
 * them, so a client can repeat them on /resume (the interface drops whatever /resume does not repeat). Secrets stay
 * on the server: a URL's user name and password, secret query parameters and token-like path segments (see
 * `withoutCredentials`), and the event stream's token, are left out and named in `withheld`.
 */
export const legWebhooksSchema = z
  .object({
    taskWebhookUrl: z.string().nullable(),
    stepWebhookUrl: z.string().nullable(),
    crewWebhookUrl: z.string().nullable(),
    webhooks: z
      .object({
        url: z.string(),
        events: z.array(z.string()).nullable().describe('null: every type crewd streams'),
        realtime: z.boolean(),
        authentication: z
          .object({ strategy: z.enum(['bearer', 'basic']) })
          .nullable()
          .describe('Only the strategy: its token or password is not shown'),
      })
      .nullable(),
    withheld: z
      .array(z.enum(['taskWebhookUrl', 'stepWebhookUrl', 'crewWebhookUrl', 'webhooks']))
      .describe('Fields whose credentials are not shown: repeating them as shown would leave those out'),
  })
  .describe("The current leg's webhooks: the kickoff's, or those the last /resume repeated");
export type LegWebhooks = z.infer<typeof legWebhooksSchema>;

type Withheld = LegWebhooks['withheld'][number];

export function toLegWebhooks(targets: WebhookTargets): LegWebhooks {
  const withheld: Withheld[] = [];
  const shown = (field: Withheld, url: string | null): string | null => {
    if (url === null) return null;
    const visible = withoutCredentials(url);
    if (visible !== url) withheld.push(field);
    return visible;
  };
  const stream = targets.events ?? null;
  const view: Omit<LegWebhooks, 'withheld'> = {
    taskWebhookUrl: shown('taskWebhookUrl', targets.taskUrl),
    stepWebhookUrl: shown('stepWebhookUrl', targets.stepUrl),
    crewWebhookUrl: shown('crewWebhookUrl', targets.crewUrl),
    webhooks:
      stream === null
        ? null
        : {
            url: shown('webhooks', stream.url) ?? stream.url,
            events: stream.types === null ? null : [...stream.types],
            realtime: stream.realtime,
            authentication:
              stream.authentication === undefined ? null : { strategy: stream.authentication.strategy },
          },
  };
  if (stream?.authentication !== undefined && !withheld.includes('webhooks')) withheld.push('webhooks');
  return { ...view, withheld };
}
