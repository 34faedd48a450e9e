import { randomUUID } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { z } from 'zod';
import { CrewdError } from '../domain/errors.ts';
import type { ChatRequest, ChatResponse } from './chat-model.ts';
import { replayKeys } from './replay-key.ts';

/** One recorded request→answer pair. `request` is a summary for people reading the file; lookups use the keys. */
export interface ReplayEntry {
  readonly key: string;
  readonly lenientKey: string;
  readonly request: unknown;
  readonly response: ChatResponse;
}

export interface ReplayFile {
  readonly version: 1;
  readonly entries: readonly ReplayEntry[];
}

const toolCallSchema = z.object({ id: z.string(), name: z.string(), input: z.unknown() });
const entrySchema = z.object({
  key: z.string().min(1),
  lenientKey: z.string().min(1).optional(),
  request: z.unknown(),
  response: z.object({
    text: z.string(),
    toolCalls: z.array(toolCallSchema).default([]),
    usage: z
      .object({ promptTokens: z.number().nonnegative(), completionTokens: z.number().nonnegative() })
      .default({ promptTokens: 0, completionTokens: 0 }),
  }),
});
const fileSchema = z.object({ version: z.literal(1), entries: z.array(entrySchema) });

/**
 * Reads and checks a replay file. A missing file is `undefined`; an unreadable or malformed one is a
 * `CONFIG_INVALID` error naming only the file's base name.
 */
export async function readReplayFile(path: string): Promise<ReplayFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw new CrewdError('CONFIG_INVALID', `replay file "${basename(path)}" could not be read`, {
      cause: error,
    });
  }
  let parsed: z.infer<typeof fileSchema>;
  try {
    parsed = fileSchema.parse(JSON.parse(text));
  } catch (error) {
    throw new CrewdError('CONFIG_INVALID', `replay file "${basename(path)}" is not a valid replay file`, {
      cause: error,
    });
  }
  return {
    version: 1,
    entries: parsed.entries.map((entry) => ({
      key: entry.key,
      lenientKey: entry.lenientKey ?? entry.key,
      request: entry.request,
      response: {
        text: entry.response.text,
        toolCalls: entry.response.toolCalls.map((call) => ({
          id: call.id,
          name: call.name,
          input: call.input,
        })),
        usage: entry.response.usage,
      },
    })),
  };
}

/** Writes the whole file through a temporary file and a rename, so readers never see half a file. */
export async function writeReplayFile(path: string, file: ReplayFile): Promise<void> {
  const temporary = `${path}.${randomUUID()}.tmp`;
  await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, 'utf8');
  await rename(temporary, path);
}

/** The entry for one answered request, with a readable summary of what was asked. */
export function replayEntry(modelId: string, request: ChatRequest, response: ChatResponse): ReplayEntry {
  const keys = replayKeys(request);
  return {
    key: keys.key,
    lenientKey: keys.lenientKey,
    request: {
      model: modelId,
      messages: request.messages,
      tools: (request.tools ?? []).map((tool) => tool.name),
      ...(request.responseSchema === undefined ? {} : { responseSchema: request.responseSchema.name }),
    },
    response: { text: response.text, toolCalls: response.toolCalls, usage: response.usage },
  };
}

/** The file's entries with `added` merged in: an entry with the same key is replaced in place. */
export function mergeEntries(file: ReplayFile | undefined, added: ReplayEntry): ReplayFile {
  const entries = [...(file?.entries ?? [])];
  const index = entries.findIndex((entry) => entry.key === added.key);
  if (index === -1) entries.push(added);
  else entries[index] = added;
  return { version: 1, entries };
}
