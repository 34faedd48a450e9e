import type { Writable } from 'node:stream';
import { CrewdError } from '../domain/errors.ts';
import type { LineSource } from './line-source.ts';
import type { Reviewer } from './run-to-completion.ts';

/**
 * Shows a paused task's output and asks `Approve? [y/N]` then `Feedback:`. Only y or yes approves. The line
 * source is asked for on the first pause, so a crew without human input never touches stdin.
 */
export function promptReviewer(lines: () => LineSource, output: Writable): Reviewer {
  return async (taskOutput) => {
    const rule = '─'.repeat(60);
    output.write(
      `\n${taskOutput.taskId} (attempt ${taskOutput.attempt}) is waiting for your review:\n` +
        `${rule}\n${taskOutput.output.trim()}\n${rule}\n`,
    );
    const source = lines();
    const answer = await source.ask('Approve? [y/N] ');
    if (answer === undefined) {
      throw new CrewdError('CANCELLED', `No review was given for ${taskOutput.taskId}: the input ended`);
    }
    const feedback = (await source.ask('Feedback: ')) ?? '';
    return { approved: /^y(es)?$/i.test(answer.trim()), feedback: feedback.trim() };
  };
}
