import { open } from 'node:fs/promises';
import { z } from 'zod';
import { defaultFileMaxBytes } from './builtin-tool-options.ts';
import { defineBuiltinTool } from './define-builtin-tool.ts';
import { findReadable, readRoots, readableWithin } from './file-sandbox.ts';
import { ToolFailure } from './tool-failure.ts';

const where =
  "Relative paths are looked up first in this execution's workspace (where FileWriterTool writes), then in the crew " +
  'directory; absolute paths and paths that lead outside them are rejected.';

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
    const text = await readText(found.realPath, found.display, maxBytes, context.abortSignal);
    if (startLine === 1 && lineCount === undefined) {
      return text.truncated ? `${text.text}\n\n${truncationNote(found.display, maxBytes)}` : text.text;
    }
    const lines = text.text.split(/(?<=\n)/);
    if (startLine > lines.length) {
      if (text.truncated)
        throw new ToolFailure(
          `Start line ${startLine} is beyond the first ${maxBytes} bytes of ${found.display}, which is as far as this tool reads.`,
        );
      throw new ToolFailure(`Start line ${startLine} exceeds the number of lines in the file.`);
    }
    const end = lineCount === undefined ? undefined : startLine - 1 + lineCount;
    return lines.slice(startLine - 1, end).join('');
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
