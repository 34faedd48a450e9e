import { defuseSlotMarkers as defuse } from '../domain/feedback-slot.ts';
import type { ChatRequest, ChatResponse } from '../llm/chat-model.ts';
import type { GuardrailVerdict } from './guardrail.ts';
import { createStructuredOutputChecker } from './structured-output.ts';
import type { StructuredOutputCheck, StructuredOutputChecker } from './structured-output.ts';

/** crewAI's LLMGuardrailResult, as the model is asked to answer. */
const verdictSchema = {
  type: 'object',
  properties: {
    valid: { type: 'boolean', description: 'Whether the task output complies with the guardrail' },
    feedback: {
      type: ['string', 'null'],
      description: 'A feedback about the task output if it is not valid',
    },
  },
  required: ['valid', 'feedback'],
  additionalProperties: false,
};

let verdictChecker: StructuredOutputChecker | undefined;
/** Compiled when a guardrail first answers: most servers never check one, and compiling slows every start. */
function checkVerdict(answer: string): StructuredOutputCheck {
  verdictChecker ??= createStructuredOutputChecker('guardrail', verdictSchema);
  return verdictChecker(answer);
}

/** crewAI's guardrail agent: who the model is while it checks. */
const guardrailSystemPrompt =
  'You are Guardrail Agent. You are a expert at validating the output of a task. By providing effective feedback ' +
  'if the output is not valid.\nYour personal goal is: Validate the output of the task';

/** The model call that checks `answer` against a string guardrail, worded as crewAI's LLMGuardrail asks it. */
export function llmGuardrailRequest(description: string, answer: string): ChatRequest {
  const query = [
    'Ensure the following task result complies with the given guardrail.',
    `Task result:\n${defuse(answer)}`,
    `Guardrail:\n${defuse(description)}`,
    'Your task:\n' +
      '- Confirm if the Task result complies with the guardrail.\n' +
      '- If not, provide clear feedback explaining what is wrong (e.g., by how much it violates the rule, or what specific part fails).\n' +
      '- Focus only on identifying issues — do not propose corrections.\n' +
      '- If the Task result complies with the guardrail, saying that is valid',
    'Answer with only a JSON object: {"valid": true or false, "feedback": "what is wrong" or null}.',
  ].join('\n\n');
  return {
    messages: [
      { role: 'system', content: guardrailSystemPrompt },
      { role: 'user', content: query },
    ],
    responseSchema: { name: 'LLMGuardrailResult', schema: verdictSchema },
  };
}

/**
 * The verdict in the model's answer. As in crewAI, an answer that cannot be read fails the check with a message
 * saying so, and the agent tries again.
 */
export function llmGuardrailVerdict(response: ChatResponse): GuardrailVerdict {
  const checked = checkVerdict(response.text);
  if (!checked.valid) {
    return {
      success: false,
      error: `Error while validating the task output: the guardrail's answer is unusable (${checked.problem})`,
    };
  }
  if (checked.value.valid === true) return { success: true };
  const feedback = checked.value.feedback;
  return {
    success: false,
    error: typeof feedback === 'string' && feedback.trim() !== '' ? feedback : 'The output is not valid',
  };
}
