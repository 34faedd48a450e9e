import { basename } from 'node:path';
import { CrewdError } from '../domain/errors.ts';
import type { ChatModel, ChatRequest, ChatResponse } from './chat-model.ts';
import { mergeEntries, readReplayFile, replayEntry, writeReplayFile } from './replay-file.ts';
import type { ReplayEntry } from './replay-file.ts';

/** Appends entries to one replay file, one write at a time. Share one per file between models. */
export interface ReplayRecorder {
  readonly filePath: string;
  append(entry: ReplayEntry): Promise<void>;
}

export function createReplayRecorder(filePath: string): ReplayRecorder {
  let last: Promise<void> = Promise.resolve();

  async function write(entry: ReplayEntry): Promise<void> {
    try {
      // Read, merge, write: the file may have been edited, or written by an earlier run, since our last write.
      await writeReplayFile(filePath, mergeEntries(await readReplayFile(filePath), entry));
    } catch (error) {
      if (error instanceof CrewdError) throw error;
      throw new CrewdError('INTERNAL', `could not write replay file "${basename(filePath)}"`, {
        cause: error,
      });
    }
  }

  return {
    filePath,
    append(entry) {
      const next = last.then(() => write(entry));
      last = next.catch(() => undefined);
      return next;
    },
  };
}

/**
 * Forwards each call to `model`, then records the request and its answer in a replay file, so a run against a
 * real model can later be replayed offline with `replay/<file>`.
 */
export function recordTo(model: ChatModel, target: string | ReplayRecorder): ChatModel {
  const recorder = typeof target === 'string' ? createReplayRecorder(target) : target;

  async function generate(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    const response = await model.generate(request, signal);
    await recorder.append(replayEntry(model.id, request, response));
    return response;
  }

  return { id: model.id, generate };
}
