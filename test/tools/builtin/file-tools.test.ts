import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBuiltinTool } from '../../../src/tools/builtin/index.ts';
import type { BuiltinToolOptions } from '../../../src/tools/builtin/index.ts';
import { toolContext } from './tool-context.ts';

let base: string;
let options: BuiltinToolOptions;
const execution = 'kickoff-7';
const context = () => toolContext(execution);

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'crewd-file-tools-'));
  const crewDir = join(base, 'crew');
  await mkdir(join(crewDir, 'data', 'deep'), { recursive: true });
  await writeFile(join(crewDir, 'data', 'notes.txt'), 'line one\nline two\nline three\nline four\n');
  await writeFile(join(crewDir, 'data', 'deep', 'facts.md'), '# Facts\n');
  await writeFile(join(crewDir, '.env'), 'OPENAI_API_KEY=sk-secret\n');
  await writeFile(join(base, 'outside.txt'), 'outside the crew\n');
  await symlink(join(base, 'outside.txt'), join(crewDir, 'data', 'escape.txt'));
  await symlink(base, join(crewDir, 'data', 'up'));
  options = {
    env: {},
    crewDir,
    workspaceRoot: join(base, 'workspaces'),
    crewdState: [],
    allowPrivateTargets: false,
  };
});
afterEach(() => rm(base, { recursive: true, force: true }));

const read = (input: Record<string, unknown>) =>
  createBuiltinTool('FileReadTool', options).run(input, context());
const write = (input: Record<string, unknown>) =>
  createBuiltinTool('FileWriterTool', options).run(input, context());
const list = (input: Record<string, unknown>) =>
  createBuiltinTool('DirectoryReadTool', options).run(input, context());

describe('FileWriterTool and FileReadTool', () => {
  it("writes in the execution's workspace, created on first write, and reads it back", async () => {
    expect(await write({ filename: 'report.md', content: '# Report\n', directory: 'out' })).toBe(
      'Content successfully written to out/report.md',
    );

    expect(await readFile(join(options.workspaceRoot, execution, 'out', 'report.md'), 'utf8')).toBe(
      '# Report\n',
    );
    expect(await read({ file_path: 'out/report.md' })).toBe('# Report\n');
  });

  it('keeps an existing file unless overwrite is given, in any of the spellings crewAI accepts', async () => {
    await write({ filename: 'a.txt', content: 'first' });

    await expect(write({ filename: 'a.txt', content: 'second' })).rejects.toThrow(
      'File a.txt already exists and overwrite option was not passed.',
    );
    expect(await write({ filename: 'a.txt', content: 'third', overwrite: 'yes' })).toBe(
      'Content successfully written to a.txt',
    );
    expect(await read({ file_path: 'a.txt' })).toBe('third');
    await expect(write({ filename: 'a.txt', content: 'x', overwrite: 'perhaps' })).rejects.toThrow(
      "invalid value for overwrite: 'perhaps'",
    );
  });

  it('makes the directories a write needs, also for calls made side by side', async () => {
    const results = await Promise.all(
      ['a', 'b', 'c'].map((name) => write({ filename: `${name}.txt`, directory: 'out/deep', content: name })),
    );

    expect(results).toEqual([
      'Content successfully written to out/deep/a.txt',
      'Content successfully written to out/deep/b.txt',
      'Content successfully written to out/deep/c.txt',
    ]);
    await expect(write({ filename: 'x.txt', directory: 'out/deep/a.txt', content: 'x' })).rejects.toThrow(
      'a file already exists where a directory is needed',
    );
  });

  it('reads the workspace first, then the crew directory', async () => {
    expect(await read({ file_path: 'data/notes.txt' })).toBe('line one\nline two\nline three\nline four\n');

    await write({ filename: 'notes.txt', directory: 'data', content: 'from the workspace' });

    expect(await read({ file_path: 'data/notes.txt' })).toBe('from the workspace');
  });

  it('reads a window of lines, as crewAI counts them', async () => {
    expect(await read({ file_path: 'data/notes.txt', start_line: 2, line_count: 2 })).toBe(
      'line two\nline three\n',
    );
    expect(await read({ file_path: 'data/notes.txt', start_line: 4 })).toBe('line four\n');
    await expect(read({ file_path: 'data/notes.txt', start_line: 9 })).rejects.toThrow(
      'Start line 9 exceeds the number of lines in the file.',
    );
  });

  it('reads a window far into a file larger than the size cap, and counts a last line without a newline', async () => {
    const lines = Array.from({ length: 400 }, (_, index) => `row ${index + 1}`);
    await writeFile(join(options.crewDir, 'rows.txt'), lines.join('\n'));
    const tool = createBuiltinTool('FileReadTool', { ...options, fileMaxBytes: 100 });

    expect(await tool.run({ file_path: 'rows.txt', start_line: 398, line_count: 2 }, context())).toBe(
      'row 398\nrow 399\n',
    );
    expect(await tool.run({ file_path: 'rows.txt', start_line: 400 }, context())).toBe('row 400');
    await expect(tool.run({ file_path: 'rows.txt', start_line: 401 }, context())).rejects.toThrow(
      'Start line 401 exceeds the number of lines in the file.',
    );
    expect(await tool.run({ file_path: 'rows.txt', start_line: 10 }, context())).toBe(
      `${lines.slice(9, 23).join('\n')}\nro\n\n[The lines read were cut after 100 bytes; use 'start_line' and 'line_count' to read the rest.]`,
    );
  });

  it('says which file is missing and where it looked', async () => {
    await expect(read({ file_path: 'data/none.txt' })).rejects.toThrow(
      "File not found at path: data/none.txt (looked in the execution's workspace or the crew directory)",
    );
  });

  it('reads no more than the size cap, and says so', async () => {
    await writeFile(join(options.crewDir, 'big.txt'), 'x'.repeat(5000));
    const tool = createBuiltinTool('FileReadTool', { ...options, fileMaxBytes: 100 });

    const output = await tool.run({ file_path: 'big.txt' }, context());

    expect(output).toBe(
      `${'x'.repeat(100)}\n\n[Only the first 100 bytes of big.txt were read; use 'start_line' and 'line_count' to read parts of it.]`,
    );
  });

  it('refuses files that are not text and environment files in the crew directory', async () => {
    await writeFile(join(options.crewDir, 'image.bin'), Buffer.from([0xff, 0xfe, 0x00, 0x81]));

    await expect(read({ file_path: 'image.bin' })).rejects.toThrow(
      'Failed to decode file image.bin as utf-8',
    );
    await expect(read({ file_path: '.env' })).rejects.toThrow(
      "Invalid file path: '.env' is an environment file, which may hold secrets; tools do not read it.",
    );
  });
});

describe('paths that leave the allowed directories', () => {
  it('FileReadTool refuses .., absolute paths and symbolic links out', async () => {
    await expect(read({ file_path: '../outside.txt' })).rejects.toThrow(
      "Invalid file path: '../outside.txt' is outside the execution's workspace or the crew directory.",
    );
    await expect(read({ file_path: 'data/../../outside.txt' })).rejects.toThrow('is outside');
    await expect(read({ file_path: join(base, 'outside.txt') })).rejects.toThrow(
      `Invalid file path: '${join(base, 'outside.txt')}' is an absolute path; give a path relative to the execution's workspace or the crew directory.`,
    );
    await expect(read({ file_path: 'data/escape.txt' })).rejects.toThrow(
      "Invalid file path: 'data/escape.txt' is a symbolic link that leads outside the crew directory.",
    );
    await expect(read({ file_path: 'data/up/outside.txt' })).rejects.toThrow(
      'leads outside the crew directory',
    );
  });

  it('FileWriterTool refuses .., absolute paths and symbolic links out, and writes nothing there', async () => {
    await mkdir(join(options.workspaceRoot, execution), { recursive: true });
    await symlink(base, join(options.workspaceRoot, execution, 'link-out'));
    await symlink(join(base, 'outside.txt'), join(options.workspaceRoot, execution, 'file-out.txt'));

    await expect(write({ filename: '../escaped.txt', content: 'x' })).rejects.toThrow(
      'Invalid file path: the filename must not escape the target directory.',
    );
    await expect(write({ filename: 'escaped.txt', directory: '../..', content: 'x' })).rejects.toThrow(
      "Invalid directory: '../..' is outside the execution's workspace.",
    );
    await expect(write({ filename: 'escaped.txt', directory: base, content: 'x' })).rejects.toThrow(
      `Invalid directory: '${base}' is an absolute path`,
    );
    await expect(write({ filename: join(base, 'escaped.txt'), content: 'x' })).rejects.toThrow(
      'the filename must be a path relative to the directory',
    );
    await expect(write({ filename: 'escaped.txt', directory: 'link-out', content: 'x' })).rejects.toThrow(
      "Invalid directory: 'link-out' is a symbolic link that leads outside the execution's workspace.",
    );
    await expect(write({ filename: 'file-out.txt', content: 'x', overwrite: true })).rejects.toThrow(
      "Invalid file path: 'file-out.txt' is a symbolic link that leads outside the execution's workspace.",
    );

    expect(await readFile(join(base, 'outside.txt'), 'utf8')).toBe('outside the crew\n');
    await expect(readFile(join(base, 'escaped.txt'))).rejects.toThrow();
  });

  it('FileWriterTool never writes into the crew directory', async () => {
    await write({ filename: 'notes.txt', directory: 'data', content: 'changed', overwrite: true });

    expect(await readFile(join(options.crewDir, 'data', 'notes.txt'), 'utf8')).toBe(
      'line one\nline two\nline three\nline four\n',
    );
  });

  it('DirectoryReadTool refuses .., absolute paths and symbolic links out', async () => {
    await expect(list({ directory: '..' })).rejects.toThrow("Invalid directory: '..' is outside");
    await expect(list({ directory: base })).rejects.toThrow(
      `Invalid directory: '${base}' is an absolute path`,
    );
    await expect(list({ directory: 'data/up' })).rejects.toThrow(
      "Invalid directory: 'data/up' is a symbolic link that leads outside the crew directory.",
    );
  });

  it('a workspace is only ever the execution id under the workspace root', async () => {
    const tool = createBuiltinTool('FileWriterTool', options);

    await expect(tool.run({ filename: 'a.txt', content: 'x' }, toolContext('../escape'))).rejects.toThrow(
      'this execution has no workspace',
    );
  });
});

describe('DirectoryReadTool', () => {
  it('lists the files of the workspace and the crew directory as paths FileReadTool reads', async () => {
    await write({ filename: 'summary.md', directory: 'data', content: '# Summary' });
    await symlink(join(options.crewDir, 'data', 'notes.txt'), join(options.crewDir, 'data', 'inside.txt'));

    expect(await list({ directory: 'data' })).toBe(
      'File paths: \n- data/deep/facts.md\n- data/inside.txt\n- data/notes.txt\n- data/summary.md',
    );
    expect(await list({ directory: '.' })).toContain('- data/summary.md');
    expect(await list({ directory: '.' })).not.toContain('.env');
  });

  it('with a preset directory, takes no argument', async () => {
    const tool = createBuiltinTool('DirectoryReadTool', options, { directory: 'data/deep' });

    expect(tool.inputSchema).toEqual({ type: 'object', properties: {} });
    expect(tool.description).toContain("list data/deep's content");
    expect(await tool.run({}, context())).toBe('File paths: \n- data/deep/facts.md');
  });

  it('says when the directory does not exist or is a file', async () => {
    await expect(list({ directory: 'nowhere' })).rejects.toThrow('Directory not found: nowhere');
    await expect(list({ directory: 'data/notes.txt' })).rejects.toThrow(
      'data/notes.txt is a file, not a directory; use FileReadTool to read it.',
    );
  });
});
