import { basename } from 'node:path';
import { CrewdError } from '../domain/errors.ts';
import type { ChatModel, ChatRequest, ChatResponse } from './chat-model.ts';
import { readReplayFile } from './replay-file.ts';
import type { ReplayEntry } from './replay-file.ts';
import { replayKeys } from './replay-key.ts';
import { standInAnswer } from './stand-in-answer.ts';

export interface ReplayModelOptions {
  readonly id: string;
  readonly filePath: string;
  /**
   * A request the file has no answer for is a `REPLAY_MISS` error (exact replay, for tests and recordings);
   * otherwise it gets a labelled stand-in answer, so a crew runs to the end with any inputs and feedback.
   */
  readonly strict: boolean;
}

/**
 * An offline model that answers from a replay file: the exact request first, else the same request with
 * any human feedback blanked, else (unless strict) a stand-in answer. The file is read once, on the first call.
 */
export function createReplayModel(options: ReplayModelOptions): ChatModel {
  const name = basename(options.filePath);
  let index: Promise<{ exact: Map<string, ReplayEntry>; lenient: Map<string, ReplayEntry> }> | undefined;

  async function load() {
    const file = await readReplayFile(options.filePath);
    if (file === undefined) throw new CrewdError('CONFIG_INVALID', `replay file "${name}" was not found`);
    const exact = new Map<string, ReplayEntry>();
    const lenient = new Map<string, ReplayEntry>();
    for (const entry of file.entries) {
      exact.set(entry.key, entry);
      // The first recording of a lenient key wins, so a file answers as it did when it was made.
      if (!lenient.has(entry.lenientKey)) lenient.set(entry.lenientKey, entry);
    }
    return { exact, lenient };
  }

  async function generate(request: ChatRequest, signal: AbortSignal): Promise<ChatResponse> {
    signal.throwIfAborted();
    index ??= load();
    // A failed load is not kept, so fixing the file takes effect without a restart.
    const entries = await index.catch((error: unknown) => {
      index = undefined;
      throw error;
    });
    signal.throwIfAborted();
    const keys = replayKeys(request);
    const entry = entries.exact.get(keys.key) ?? entries.lenient.get(keys.lenientKey);
    if (entry === undefined) {
      if (!options.strict) return standInAnswer(request, name);
      throw new CrewdError(
        'REPLAY_MISS',
        `replay file "${name}" has no answer for: ${lastUserText(request)}`,
        {
          details: { file: name },
        },
      );
    }
    return {
      text: entry.response.text,
      toolCalls: entry.response.toolCalls,
      usage: entry.response.usage,
    };
  }

  return { id: options.id, generate };
}

function lastUserText(request: ChatRequest): string {
  const message = [...request.messages].reverse().find((candidate) => candidate.role === 'user');
  if (message === undefined) return '(no user message)';
  const flat = message.content.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat;
}
