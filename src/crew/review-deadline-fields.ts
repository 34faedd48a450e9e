import { z } from 'zod';
import { parseDuration } from '../domain/duration.ts';
import type { ReviewOutcome } from '../domain/review-deadline.ts';

/** `human_input_deadline`: how long a review may wait, as `90s`, `45m`, `12h`, `2d` or `1w`. */
export function reviewDeadlineAfter() {
  return z
    .string({ error: 'must be a duration such as 30m, 12h or 2d' })
    .transform((value, context) => {
      const ms = parseDuration(value);
      if (ms === undefined) {
        context.addIssue({ code: 'custom', message: 'must be a duration such as 30m, 12h or 2d' });
        return z.NEVER;
      }
      return ms;
    })
    .nullish();
}

const outcomeError = 'must be approve, or reject with the feedback to give, as {reject: "…"}';

/** `human_input_on_deadline`: `approve`, or `{reject: "<feedback>"}` to run the task again with that feedback. */
export function reviewOutcome() {
  return z
    .union(
      [
        z.literal('approve').transform((): ReviewOutcome => ({ approve: true })),
        z
          .strictObject({ reject: z.string().trim().min(1) })
          .transform((value): ReviewOutcome => ({ approve: false, feedback: value.reject })),
      ],
      { error: outcomeError },
    )
    .nullish();
}
