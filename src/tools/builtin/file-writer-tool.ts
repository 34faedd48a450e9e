import { chmod, writeFile } from 'node:fs/promises';
import { ownerOnlyFileMode } from '../../system/owner-only.ts';
import { z } from 'zod';
import { defineBuiltinTool } from './define-builtin-tool.ts';
import { prepareWritable, workspaceOf } from './file-sandbox.ts';
import { ToolFailure } from './tool-failure.ts';

const trueWords = new Set(['y', 'yes', 't', 'true', 'on', '1']);
const falseWords = new Set(['n', 'no', 'f', 'false', 'off', '0']);

/** Models write booleans in many ways; crewAI accepts these spellings, so prompts written for it keep working. */
function overwriteFlag(value: boolean | string): boolean {
  if (typeof value === 'boolean') return value;
  const word = value.trim().toLowerCase();
  if (trueWords.has(word)) return true;
  if (falseWords.has(word)) return false;
  throw new ToolFailure(
    `An error occurred while writing to the file: invalid value for overwrite: '${value}'`,
  );
}

/** crewAI's FileWriterTool, writing only inside the execution's workspace. */
export const fileWriterTool = defineBuiltinTool({
  name: 'FileWriterTool',
  args: z.object({
    filename: z
      .string()
      .describe(
        "Name of the file to write, relative to 'directory'. May include subdirectories, which are created if they do not exist.",
      ),
    content: z.string().describe('The text content to write to the file.'),
    directory: z
      .string()
      .nullish()
      .describe(
        "Directory to write the file into, relative to this execution's workspace; defaults to its root. Created if it does not exist.",
      ),
    overwrite: z
      .union([z.boolean(), z.string()])
      .nullish()
      .describe(
        'Whether to replace the file when it already exists. Accepts true/false (also yes/no, on/off, 1/0). Defaults to false, which reports an error instead of replacing existing content.',
      ),
  }),
  settings: z.object({}),
  describe: () =>
    "A tool to write content to a specified file. Accepts filename, content, and optionally a directory path and overwrite flag as input. Files are written in this execution's workspace, where FileReadTool and DirectoryReadTool find them; absolute paths and paths that lead outside it are rejected.",
  async run(args, _settings, context, options) {
    const overwrite = overwriteFlag(args.overwrite ?? false);
    const workspace = workspaceOf(options, context.executionId);
    const target = await prepareWritable(workspace, args.directory ?? './', args.filename);
    try {
      await writeFile(target.realPath, args.content, {
        encoding: 'utf8',
        flag: overwrite ? 'w' : 'wx',
        mode: ownerOnlyFileMode,
        signal: context.abortSignal,
      });
      // The mode given is narrowed by the umask, and an unusual umask may narrow it below the owner's own rights.
      await chmod(target.realPath, ownerOnlyFileMode);
    } catch (error) {
      if (typeof error === 'object' && error !== null && 'code' in error && error.code === 'EEXIST') {
        throw new ToolFailure(`File ${target.display} already exists and overwrite option was not passed.`);
      }
      throw error;
    }
    return `Content successfully written to ${target.display}`;
  },
});
