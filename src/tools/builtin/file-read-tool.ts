import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { z } from 'zod';
import { defaultFileMaxBytes } from './builtin-tool-options.ts';
import { defineBuiltinTool } from './define-builtin-tool.ts';
import { findReadable, readRoots, readableWithin } from './file-sandbox.ts';
import { ToolFailure } from './tool-failure.ts';

const where =
  "Relative paths are looked up first in this execution's workspace (where FileWriterTool writes), then in the crew " +
  "directory; absolute paths and paths that lead outside them are rejected, and so are crewd's own data, hidden " +
  "and environment files, keys, and the crew's definition and code.";

/** crewAI's FileReadTool: a file's text, or a window of its lines. */
export const fileReadTool = defineBuiltinTool({
  name: 'FileReadTool',
  args: z.object({
    file_path: z
      .string()
      .describe('Path of the file to read, relative to the workspace or the crew directory'),
    start_line: z.number().int().min(1).nullish().describe('Line number to start reading from (1-indexed)'),
    line_count: z
      .number()
      .int()
      .min(1)
      .nullish()
      .describe('Number of lines to read. If None, reads the entire file'),
  }),
  settings: z.object({}),
  describe(presets) {
    const fixed = typeof presets['file_path'] === 'string' ? presets['file_path'] : undefined;
    if (fixed !== undefined) {
      return `A tool that reads the content of ${fixed}. Optionally, provide 'start_line' to start reading from a specific line and 'line_count' to limit the number of lines read. ${where}`;
    }
    return `A tool that reads the content of a file. To use this tool, provide a 'file_path' parameter with the path to the file you want to read. Optionally, provide 'start_line' to start reading from a specific line and 'line_count' to limit the number of lines read. ${where}`;
  },
  async run(args, _settings, context, options) {
    const found = await findReadable(args.file_path, readRoots(options, context.executionId));
    if (found === undefined)
      throw new ToolFailure(`File not found at path: ${args.file_path} (looked in ${readableWithin})`);
    const maxBytes = options.fileMaxBytes ?? defaultFileMaxBytes;
    const startLine = args.start_line ?? 1;
    const lineCount = args.line_count ?? undefined;
    if (startLine === 1 && lineCount === undefined) {
      const text = await readText(found.realPath, found.display, maxBytes, context.abortSignal);
      return text.truncated ? `${text.text}\n\n${truncationNote(found.display, maxBytes)}` : text.text;
    }
    const window = await readLines(
      found.realPath,
      found.display,
      startLine,
      lineCount,
      maxBytes,
      context.abortSignal,
    );
    if (window === undefined)
      throw new ToolFailure(`Start line ${startLine} exceeds the number of lines in the file.`);
    if (!window.truncated) return window.text;
    return `${window.text}\n\n[The lines read were cut after ${maxBytes} bytes; use 'start_line' and 'line_count' to read the rest.]`;
  },
});

function truncationNote(display: string, maxBytes: number): string {
  return `[Only the first ${maxBytes} bytes of ${display} were read; use 'start_line' and 'line_count' to read parts of it.]`;
}

/** Reads at most `maxBytes` of a file as UTF-8; a file that is not text is refused rather than shown garbled. */
async function readText(
  path: string,
  display: string,
  maxBytes: number,
  signal: AbortSignal,
): Promise<{ text: string; truncated: boolean }> {
  const handle = await open(path, 'r');
  try {
    if ((await handle.stat()).isDirectory())
      throw new ToolFailure(`${display} is a directory; use DirectoryReadTool to list it.`);
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      signal.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    const truncated = length > maxBytes;
    const decoder = new TextDecoder('utf-8', { fatal: true });
    try {
      // Streaming mode keeps a character cut in half at the size cap from counting as an encoding error.
      const text = decoder.decode(buffer.subarray(0, Math.min(length, maxBytes)), { stream: truncated });
      return { text, truncated };
    } catch {
      throw new ToolFailure(`Failed to decode file ${display} as utf-8: it is not a text file.`);
    }
  } finally {
    await handle.close();
  }
}

/**
 * Lines `startLine` to `startLine + lineCount - 1` (to the end when no count), read as a stream so a window far
 * into a large file costs no memory for what comes before it; the window itself is cut at `maxBytes`.
 * Undefined when the file has fewer lines than `startLine`.
 */
async function readLines(
  path: string,
  display: string,
  startLine: number,
  lineCount: number | undefined,
  maxBytes: number,
  signal: AbortSignal,
): Promise<{ text: string; truncated: boolean } | undefined> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const taken: string[] = [];
  let takenBytes = 0;
  /** Adds a line to the window: `more` to go on, `done` at the line count, `cut` at the size cap. */
  const take = (text: string): 'more' | 'done' | 'cut' => {
    const bytes = Buffer.byteLength(text);
    if (takenBytes + bytes > maxBytes) {
      // Cut at the byte cap; a character split in two is dropped rather than shown broken.
      taken.push(
        Buffer.from(text)
          .subarray(0, maxBytes - takenBytes)
          .toString('utf8')
          .replace(/\uFFFD$/, ''),
      );
      return 'cut';
    }
    taken.push(text);
    takenBytes += bytes;
    return lineCount !== undefined && taken.length >= lineCount ? 'done' : 'more';
  };
  let line = 1;
  let pending = '';
  // Whether the line being read has any character yet: a last line without a newline still counts.
  let partial = false;
  const stream = createReadStream(path, { signal });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      pending += decodeChunk(decoder, chunk, display);
      for (let newline = pending.indexOf('\n'); newline !== -1; newline = pending.indexOf('\n')) {
        const text = pending.slice(0, newline + 1);
        pending = pending.slice(newline + 1);
        partial = false;
        if (line >= startLine) {
          const outcome = take(text);
          if (outcome !== 'more') return { text: taken.join(''), truncated: outcome === 'cut' };
        }
        line += 1;
      }
      partial ||= pending !== '';
      // The rest of a line before the window is never shown: keep nothing of it.
      if (line < startLine) pending = '';
    }
    pending += decodeChunk(decoder, undefined, display);
    partial ||= pending !== '';
    const lines = partial ? line : line - 1;
    if (lines < startLine) return undefined;
    const outcome = partial ? take(pending) : 'more';
    return { text: taken.join(''), truncated: outcome === 'cut' };
  } finally {
    stream.destroy();
  }
}

function decodeChunk(
  decoder: InstanceType<typeof TextDecoder>,
  chunk: Buffer | undefined,
  display: string,
): string {
  try {
    return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
  } catch {
    throw new ToolFailure(`Failed to decode file ${display} as utf-8: it is not a text file.`);
  }
}
