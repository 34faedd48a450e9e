import { expect } from 'vitest';
import type { ApiResponse } from './crewd.ts';
import type { FakeOpenAIServer } from './fake-openai-server.ts';
import { requestsMentioning } from './model-requests.ts';

/**
 * The plain crew (outline, note, summary) on `topic` finished after the process running it died during the note:
 * every task's output is there, the saved outline was not asked for again, and only the note was asked for twice.
 */
export function expectFinishedAfterLosingTheNote(
  model: FakeOpenAIServer,
  done: ApiResponse,
  topic: string,
): void {
  expect(done.body.state).toBe('SUCCESS');
  expect(done.body.tasks.map((task: { task_id: string }) => task.task_id)).toEqual([
    'outline',
    'note',
    'summary',
  ]);
  expect(requestsMentioning(model, `Outline a note about ${topic}`)).toHaveLength(1);
  expect(requestsMentioning(model, `Write the note about ${topic}`)).toHaveLength(2);
}
