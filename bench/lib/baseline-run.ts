import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';

/**
 * The baseline every figure is set beside: the cheapest honest way to get the answers a 3-task crew gets. The
 * same three Chat Completions calls, one after another, through the same provider client crewd uses, each
 * carrying the earlier answers as context the way the crew's tasks do. No store, no events, no HTTP service.
 */
export function createBaselineRun(modelUrl: string): (topic: string) => Promise<string> {
  const model = createOpenAI({ baseURL: modelUrl, apiKey: 'sk-bench-key' }).chat('bench-model');
  const tasks = [
    { role: 'Researcher of', task: 'List three facts about', expected: 'Three facts, one per line.' },
    { role: 'Writer on', task: 'Draft a one-paragraph brief about', expected: 'One paragraph.' },
    { role: 'Writer on', task: 'Summarise in one line the brief about', expected: 'One line.' },
  ];
  return async (topic) => {
    const answers: string[] = [];
    for (const { role, task, expected } of tasks) {
      const context = answers.length === 0 ? '' : `\n\nContext:\n${answers.join('\n\n')}`;
      const result = await generateText({
        model,
        system: `You are ${role} ${topic}. Your goal: a short, plain brief.`,
        prompt: `${task} ${topic}.\n\nExpected output: ${expected}${context}`,
        maxRetries: 0,
      });
      answers.push(result.text);
    }
    return answers.at(-1) ?? '';
  };
}
