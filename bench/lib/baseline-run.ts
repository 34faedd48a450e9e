import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';
import { createModelFetch } from '../../src/llm/model-fetch.ts';
import { createOpenAIModel } from '../../src/llm/openai-model.ts';

/**
 * How the baseline makes its calls. `crewd-client`: through the model client crewd itself uses (the AI SDK's
 * OpenAI provider called directly, over crewd's undici-based fetch), so a figure shows what crewd adds around
 * its own model calls. `generateText`: the AI SDK's `generateText` over Node's global fetch, the usual way to
 * make such a call, kept as a reference point.
 */
export type BaselineClient = 'crewd-client' | 'generateText';

export const baselineLabels: Record<BaselineClient, string> = {
  'crewd-client': "crewd's model client",
  generateText: 'generateText over the global fetch',
};

const tasks = [
  { role: 'Researcher of', task: 'List three facts about', expected: 'Three facts, one per line.' },
  { role: 'Writer on', task: 'Draft a one-paragraph brief about', expected: 'One paragraph.' },
  { role: 'Writer on', task: 'Summarise in one line the brief about', expected: 'One line.' },
];

/**
 * The baseline every figure is set beside: the cheapest honest way to get the answers a 3-task crew gets. The
 * same three Chat Completions calls, one after another, each carrying the earlier answers as context the way the
 * crew's tasks do. No store, no events, no HTTP service.
 */
export function createBaselineRun(
  modelUrl: string,
  client: BaselineClient = 'crewd-client',
): (topic: string) => Promise<string> {
  const call = client === 'crewd-client' ? crewdClientCall(modelUrl) : generateTextCall(modelUrl);
  return async (topic) => {
    const answers: string[] = [];
    for (const { role, task, expected } of tasks) {
      const context = answers.length === 0 ? '' : `\n\nContext:\n${answers.join('\n\n')}`;
      answers.push(
        await call(
          `You are ${role} ${topic}. Your goal: a short, plain brief.`,
          `${task} ${topic}.\n\nExpected output: ${expected}${context}`,
        ),
      );
    }
    return answers.at(-1) ?? '';
  };
}

type Call = (system: string, prompt: string) => Promise<string>;

function crewdClientCall(modelUrl: string): Call {
  const model = createOpenAIModel({
    modelId: 'openai/bench-model',
    model: 'bench-model',
    apiKey: 'sk-bench-key',
    baseURL: modelUrl,
    timeoutMs: 120_000,
    fetch: createModelFetch(),
  });
  return async (system, prompt) => {
    const response = await model.generate(
      {
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: prompt },
        ],
      },
      new AbortController().signal,
    );
    return response.text;
  };
}

function generateTextCall(modelUrl: string): Call {
  const model = createOpenAI({ baseURL: modelUrl, apiKey: 'sk-bench-key' }).chat('bench-model');
  return async (system, prompt) => {
    const result = await generateText({ model, system, prompt, maxRetries: 0 });
    return result.text;
  };
}
