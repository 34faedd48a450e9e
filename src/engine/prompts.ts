import type { AgentDefinition, JsonSchema, TaskDefinition } from '../domain/crew.ts';
import { defuseSlotMarkers as defuse, feedbackSlot } from '../domain/feedback-slot.ts';
import type { HumanFeedback, TaskOutput } from '../domain/task-output.ts';

/**
 * Prompt texts. The system prompt holds only who the agent is; everything that varies per task (context, human
 * feedback) goes in the user message, and human feedback only ever inside a feedback slot. Every text that may
 * carry what a client, a model or a tool wrote (inputs fill the agent's and task's texts) is defused, so only crewd
 * opens and closes feedback slots.
 */

/** The agent's persona, from its already interpolated role, goal and backstory. */
export function systemPrompt(agent: AgentDefinition): string {
  return `You are ${defuse(agent.role)}. ${defuse(agent.backstory)}\nYour personal goal is: ${defuse(agent.goal)}`;
}

export interface TaskPromptParts {
  /** The task with its texts already interpolated. */
  readonly task: TaskDefinition;
  readonly context: readonly TaskOutput[];
  readonly approvedFeedback: readonly HumanFeedback[];
  /** Rejections of this task, oldest first; the last one holds the answer to improve. */
  readonly rejections: readonly HumanFeedback[];
}

const separator = '\n\n----------\n\n';

/** The user message that starts a task attempt. */
export function taskPrompt(parts: TaskPromptParts): string {
  const { task } = parts;
  const sections = [`Current task: ${defuse(task.description)}`];
  // An agent run on its own (a flow's agent action, crewAI's Agent.kickoff) has no expected output to state.
  if (task.expectedOutput !== '') {
    sections.push(
      `Expected output: ${defuse(task.expectedOutput)}\n` +
        'Your final answer must be the complete content itself, not a description or summary of it.',
    );
  }
  if (task.outputJson !== undefined) sections.push(jsonInstructions(task.outputJson));
  if (task.markdown === true) sections.push(markdownInstructions);
  if (parts.context.length > 0) sections.push(contextSection(parts.context));
  if (parts.approvedFeedback.length > 0) sections.push(approvedFeedbackSection(parts.approvedFeedback));
  if (parts.rejections.length > 0) sections.push(retrySection(parts.rejections));
  sections.push('When you have what you need, reply with your final answer.');
  return sections.join('\n\n');
}

/** crewAI's `markdown: true`: the answer is asked for in Markdown, with the syntax spelled out. */
export const markdownInstructions =
  'Format your final answer in Markdown: # for headings, **bold** and *italic* for emphasis, - for list items, ' +
  '`backticks` for inline code and fenced blocks (```language) for code.';

/** Added to the task prompt when the agent tries again after a failed guardrail check (crewAI's validation_error). */
export function guardrailRetrySection(validationError: string, previousAnswer: string): string {
  return (
    `${separator}### Previous attempt failed validation: ${defuse(validationError)}\n\n\n` +
    `### Previous result:\n${defuse(previousAnswer)}\n\n\n` +
    'Try again, making sure to address the validation error.'
  );
}

/** Sent, without tools, when an agent used up its iterations still calling tools. */
export const finalAnswerRequest =
  'You have reached the maximum number of steps for this task. Do not call any more tools: ' +
  'give your best final answer now, based on what you have so far.';

/** Asks once more for a structured answer, saying what was wrong with the last one. */
export function correctionRequest(problem: string): string {
  return (
    `Your answer does not match the required JSON Schema: ${defuse(problem)}.\n` +
    'Answer again with only the corrected JSON object, with no other text.'
  );
}

function jsonInstructions(schema: JsonSchema): string {
  return (
    'Your final answer must be a single JSON object that matches this JSON Schema, with no other text:\n' +
    JSON.stringify(schema, null, 2)
  );
}

function contextSection(context: readonly TaskOutput[]): string {
  const blocks = context.map((output) => `Output of task '${output.taskId}':\n${defuse(output.output)}`);
  return `Context from earlier tasks:\n\n${blocks.join(separator)}`;
}

function approvedFeedbackSection(feedback: readonly HumanFeedback[]): string {
  const blocks = feedback.map(
    (entry) =>
      `A human reviewer approved the output of task '${entry.taskId}' with this feedback:\n${feedbackSlot(entry.text)}`,
  );
  return `Take this feedback into account:\n\n${blocks.join('\n\n')}`;
}

function retrySection(rejections: readonly HumanFeedback[]): string {
  const latest = rejections.at(-1);
  const feedback = rejections.map(
    (entry) => `Feedback on attempt ${entry.attempt}:\n${feedbackSlot(entry.text.trim() || '(no comments)')}`,
  );
  return [
    `A human reviewer did not accept your previous answer to this task. Your previous answer was:\n\n${defuse(latest?.output ?? '')}`,
    feedback.join('\n\n'),
    'Write an improved final answer that addresses this feedback.',
  ].join('\n\n');
}
