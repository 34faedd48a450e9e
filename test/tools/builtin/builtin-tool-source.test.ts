import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolBox } from '../../../src/engine/tool-box.ts';
import { builtinToolSource, createBuiltinTool } from '../../../src/tools/builtin/index.ts';
import type { BuiltinToolOptions } from '../../../src/tools/builtin/index.ts';
import { toolContext } from './tool-context.ts';

let base: string;
let options: BuiltinToolOptions;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'crewd-builtin-'));
  await writeFile(join(base, 'brief.txt'), 'one\ntwo\nthree\n');
  options = {
    env: {},
    crewDir: base,
    workspaceRoot: join(base, 'workspaces'),
    crewdState: [],
    allowPrivateTargets: false,
  };
});
afterEach(() => rm(base, { recursive: true, force: true }));

const scope = { executionId: 'kickoff-1', taskId: 'research', agent: 'researcher' };

describe('builtinToolSource', () => {
  it("offers crewAI's tools under crewAI's names, and is up at once", async () => {
    const source = builtinToolSource(options);
    await source.open();

    expect(source.names()).toEqual([
      'SerperDevTool',
      'ScrapeWebsiteTool',
      'FileReadTool',
      'FileWriterTool',
      'DirectoryReadTool',
    ]);
    expect(source.find('FileReadTool')?.name).toBe('FileReadTool');
    expect(source.find('NoSuchTool')).toBeUndefined();
    expect(source.status()).toEqual({ label: 'built-in tools', up: true });
    await source.close();
  });

  it("gives the model crewAI's argument names, and the engine checks calls against them", async () => {
    const source = builtinToolSource(options);
    const properties = (name: string) => Object.keys(source.find(name)!.inputSchema['properties'] as object);

    expect(properties('SerperDevTool')).toEqual(['search_query']);
    expect(properties('ScrapeWebsiteTool')).toEqual(['website_url']);
    expect(properties('FileReadTool')).toEqual(['file_path', 'start_line', 'line_count']);
    expect(properties('FileWriterTool')).toEqual(['filename', 'content', 'directory', 'overwrite']);
    expect(properties('DirectoryReadTool')).toEqual(['directory']);

    const box = createToolBox(
      source.names().map((name) => source.find(name)!),
      scope,
    );
    const signal = new AbortController().signal;
    expect(await box.run({ id: 'c1', name: 'FileReadTool', input: {} }, signal)).toMatch(
      /^Error: invalid input for tool 'FileReadTool': .*file_path/,
    );
    expect(
      await box.run({ id: 'c2', name: 'FileReadTool', input: { file_path: '../etc/passwd' } }, signal),
    ).toBe(
      "Error: Invalid file path: '../etc/passwd' is outside the execution's workspace or the crew directory.",
    );
    expect(
      await box.run(
        { id: 'c3', name: 'FileReadTool', input: { file_path: 'brief.txt', line_count: 1 } },
        signal,
      ),
    ).toBe('one\n');
  });
});

describe('createBuiltinTool with presets', () => {
  it('takes a preset argument out of the schema and uses it for every call', async () => {
    const tool = createBuiltinTool('FileReadTool', options, { file_path: 'brief.txt' });

    expect(tool.inputSchema['properties']).not.toHaveProperty('file_path');
    expect(tool.inputSchema['required']).toBeUndefined();
    expect(tool.description).toContain('reads the content of brief.txt');
    expect(await tool.run({ start_line: 2 }, toolContext())).toBe('two\nthree\n');
    // A model that passes the argument anyway does not get to change it.
    expect(await tool.run({ file_path: 'elsewhere.txt', start_line: 3 }, toolContext())).toBe('three\n');
  });

  it("gives each crew's instance the schema of its own presets, whatever instances were made before", () => {
    const properties = (presets?: Record<string, unknown>) =>
      Object.keys(createBuiltinTool('FileReadTool', options, presets).inputSchema['properties'] as object);

    expect(properties()).toEqual(['file_path', 'start_line', 'line_count']);
    expect(properties({ file_path: 'brief.txt' })).toEqual(['start_line', 'line_count']);
    expect(properties({ line_count: 2, file_path: 'brief.txt' })).toEqual(['start_line']);
    expect(properties({ file_path: 'brief.txt', line_count: 5 })).toEqual(['start_line']);
    expect(properties({ line_count: 2 })).toEqual(['file_path', 'start_line']);
    expect(properties()).toEqual(['file_path', 'start_line', 'line_count']);
  });

  it('names the tool and the argument when a preset does not fit', () => {
    expect(() => createBuiltinTool('FileReadTool', options, { path: 'x' })).toThrow(
      "FileReadTool has no argument 'path'; it takes 'file_path', 'start_line', 'line_count'",
    );
    expect(() => createBuiltinTool('FileReadTool', options, { constructor: 'x' })).toThrow(
      "FileReadTool has no argument 'constructor'",
    );
    expect(() => createBuiltinTool('FileReadTool', options, { start_line: 0 })).toThrow(
      /FileReadTool: 'start_line'/,
    );
    expect(() => createBuiltinTool('PdfSearchTool', options)).toThrow(
      "There is no built-in tool named 'PdfSearchTool'; the built-in tools are SerperDevTool, ScrapeWebsiteTool, FileReadTool, FileWriterTool, DirectoryReadTool",
    );
  });
});
