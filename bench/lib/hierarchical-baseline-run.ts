import type { ChatMessage, ChatModel } from '../../src/llm/chat-model.ts';
import { createModelFetch } from '../../src/llm/model-fetch.ts';
import { createOpenAIModel } from '../../src/llm/openai-model.ts';

const tasks = [
  { coworker: 'Researcher of', task: 'List three facts about' },
  { coworker: 'Writer', task: 'Draft a one-paragraph brief about' },
  { coworker: 'Writer', task: 'Summarise in one line the brief about' },
];

function model(modelUrl: string, name: string): ChatModel {
  return createOpenAIModel({
    modelId: `openai/${name}`,
    model: name,
    apiKey: 'sk-bench-key',
    baseURL: modelUrl,
    timeoutMs: 120_000,
    fetch: createModelFetch(),
  });
}

/**
 * The baseline beside the hierarchical crew: for each of its three tasks, the model calls a manager-led task makes,
 * made directly through crewd's model client. The manager is offered the delegation tool and calls it, the
 * coworker answers, and the manager answers with the tool's result: nine calls, three delegations.
 */
export function createHierarchicalBaselineRun(modelUrl: string): (topic: string) => Promise<string> {
  const manager = model(modelUrl, 'bench-manager');
  const coworker = model(modelUrl, 'bench-model');
  const signal = new AbortController().signal;
  return async (topic) => {
    const answers: string[] = [];
    for (const { coworker: role, task } of tasks) {
      const coworkerRole = role === 'Writer' ? role : `${role} ${topic}`;
      const context = answers.length === 0 ? '' : `\n\nContext:\n${answers.join('\n\n')}`;
      const messages: ChatMessage[] = [
        { role: 'system', content: 'You are Crew Manager. You hand work to your coworkers.' },
        { role: 'user', content: `${task} ${topic}.${context}` },
      ];
      const tools = [
        {
          name: 'Delegate_work_to_coworker',
          description: `Hand a specific task to one of these coworkers:\n- ${coworkerRole}\nGive everything.`,
          inputSchema: {
            type: 'object',
            properties: {
              task: { type: 'string' },
              context: { type: 'string' },
              coworker: { type: 'string' },
            },
            required: ['task', 'context', 'coworker'],
          },
        },
      ];
      const handOver = await manager.generate({ messages, tools }, signal);
      const call = handOver.toolCalls[0];
      if (call === undefined) throw new Error('the manager did not delegate');
      const work = await coworker.generate(
        {
          messages: [
            { role: 'system', content: `You are ${coworkerRole}.` },
            { role: 'user', content: `Current task: Do the task\n\nAll there is${context}` },
          ],
        },
        signal,
      );
      const final = await manager.generate(
        {
          messages: [
            ...messages,
            { role: 'assistant', content: handOver.text, toolCalls: handOver.toolCalls },
            { role: 'tool', toolCallId: call.id, toolName: call.name, content: work.text },
          ],
          tools,
        },
        signal,
      );
      answers.push(final.text);
    }
    return answers.at(-1) ?? '';
  };
}
