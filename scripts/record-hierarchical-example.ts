/**
 * Records examples/hierarchical-crew/hierarchical-crew.replay.json: runs the example crew against a scripted model
 * that plays the manager (delegating each task to its agent), the researcher, and the writer (who asks the
 * researcher a question first), and saves every request with its answer. Run with
 * `npx tsx scripts/record-hierarchical-example.ts` after changing the crew's prompts.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { runApprovingAll } from '../src/cli/run-to-completion.ts';
import { loadCrew } from '../src/crew/load-crew.ts';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/llm/chat-model.ts';
import { recordTo } from '../src/llm/recording-model.ts';
import { toolRegistryOf } from '../src/engine/tool.ts';

const crewDir = join(import.meta.dirname, '../examples/hierarchical-crew');
const replayFile = 'hierarchical-crew.replay.json';
const inputs = { topic: 'tides' };

const facts =
  '- Tides are caused mainly by the Moon pulling on the oceans.\n' +
  '- Most coasts see two high and two low tides a day.\n' +
  '- Spring tides, the largest, come at new and full moon.';

function text(content: ChatRequest['messages'][number]['content']): string {
  return typeof content === 'string' ? content : '';
}

/** Each side of the conversation, told apart by the system prompt. */
function answer(request: ChatRequest): ChatResponse {
  const system = text(request.messages[0]?.content ?? '');
  const prompt = text(request.messages[1]?.content ?? '');
  const results = request.messages
    .filter((message) => message.role === 'tool')
    .map((message) => text(message.content));
  const usage = { promptTokens: 30 * request.messages.length, completionTokens: 25 };
  const reply = (content: string, toolCalls: ChatResponse['toolCalls'] = []): ChatResponse => ({
    text: content,
    toolCalls,
    usage,
  });
  if (system.startsWith('You are Crew Manager')) {
    if (results.length > 0) return reply(results[0]!);
    const research = prompt.includes('Gather three facts');
    return reply(`This is work for the ${research ? 'Researcher' : 'Writer'}.`, [
      {
        id: research ? 'call_delegate_research' : 'call_delegate_brief',
        name: 'Delegate_work_to_coworker',
        input: research
          ? {
              task: 'Gather three facts about tides, as bullet points.',
              context: 'For a short brief.',
              coworker: 'Researcher',
            }
          : {
              task: 'Write a three-line brief about tides.',
              context: `The research found:\n${facts}`,
              coworker: 'Writer',
            },
      },
    ]);
  }
  if (system.startsWith('You are Researcher')) {
    return prompt.includes('Which of these')
      ? reply('The Moon: it explains the other two facts.')
      : reply(facts);
  }
  if (results.length === 0) {
    return reply('I will ask the researcher which fact to lead with.', [
      {
        id: 'call_ask_researcher',
        name: 'Ask_question_to_coworker',
        input: {
          question: 'Which of these facts should a brief lead with?',
          context: facts,
          coworker: 'Researcher',
        },
      },
    ]);
  }
  return reply(
    'Tides come from the Moon pulling on the oceans.\n' +
      'Most coasts get two highs and two lows a day.\n' +
      'The biggest, spring tides, arrive at new and full moon.',
  );
}

const crew = await loadCrew(crewDir, { warn: (message) => console.warn(message) });
rmSync(join(crewDir, replayFile), { force: true });
const scripted: ChatModel = {
  id: `replay/${replayFile}`,
  generate: (request) => Promise.resolve(answer(request)),
};
const model = recordTo(scripted, join(crewDir, replayFile));
const result = await runApprovingAll({
  executionId: 'recording',
  crew,
  inputs,
  model,
  tools: toolRegistryOf([]),
});
console.log(result.outputs.at(-1)?.output);
