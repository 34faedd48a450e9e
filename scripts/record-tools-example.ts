/**
 * Records examples/tools-crew/tools-crew.replay.json: runs the example crew with its real tools (the weather MCP
 * server and tools/packing-list.ts) against a scripted model that calls them, and saves every request with its
 * answer. Run with `npx tsx scripts/record-tools-example.ts` after changing the crew's prompts or tools.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { runApprovingAll } from '../src/cli/run-to-completion.ts';
import { loadCrew } from '../src/crew/load-crew.ts';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/llm/chat-model.ts';
import { recordTo } from '../src/llm/recording-model.ts';
import { openCrewTools } from '../src/tools/open-crew-tools.ts';

const crewDir = join(import.meta.dirname, '../examples/tools-crew');
const replayFile = 'tools-crew.replay.json';
const inputs = { city: 'Lisbon' };

/** The model's side of the conversation: a forecast call, a packing list call, then the answer. */
function answer(request: ChatRequest): ChatResponse {
  const results = request.messages.filter((message) => message.role === 'tool');
  const usage = { promptTokens: 40 * request.messages.length, completionTokens: 30 };
  if (results.length === 0) {
    return {
      text: 'I will check the forecast for Lisbon first.',
      toolCalls: [{ id: 'call_forecast', name: 'weather_forecast', input: { city: 'Lisbon' } }],
      usage,
    };
  }
  if (results.length === 1) {
    return {
      text: 'Sunny with a high of 24 °C and no rain: now the packing list.',
      toolCalls: [{ id: 'call_packing', name: 'packing_list', input: { high_c: 24, rain: false } }],
      usage,
    };
  }
  const list = results[1]!.content;
  return {
    text: `Tomorrow in Lisbon: sunny, high 24 °C, low 16 °C, light wind.\n\n${list}`,
    toolCalls: [],
    usage,
  };
}

const crew = await loadCrew(crewDir, { warn: (message) => console.warn(message) });
const tools = await openCrewTools(crew, {
  crewDir,
  env: process.env,
  workspaceRoot: join(crewDir, '.workspace'),
  crewdState: [join(crewDir, '.workspace')],
});
rmSync(join(crewDir, replayFile), { force: true });
const scripted: ChatModel = {
  id: `replay/${replayFile}`,
  generate: (request) => Promise.resolve(answer(request)),
};
const model = recordTo(scripted, join(crewDir, replayFile));
try {
  const result = await runApprovingAll({ executionId: 'recording', crew, inputs, model, tools });
  console.log(result.outputs.at(-1)?.output);
} finally {
  await tools.close();
}
