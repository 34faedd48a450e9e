import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crewToolsSource } from '../../src/tools/crew-tools/crew-tools-source.ts';

// Every way a user may write a tools/ module, loaded from a crew directory outside this repository: with no
// package.json around it, with one that does not say "type" (both run .ts and .js as CommonJS), and with one that
// says "type": "module".

type Packaging = 'no package.json' | 'package.json without "type"' | 'package.json with "type": "module"';
const packagings: readonly Packaging[] = [
  'no package.json',
  'package.json without "type"',
  'package.json with "type": "module"',
];

const toolFields = `name: 'echo',
  description: 'Says its text again',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  run: ({ text }) => 'echo: ' + text,`;

const zodToolFields = `name: 'echo',
  description: 'Says its text again',
  inputSchema: z.object({ text: z.string() }),
  run: ({ text }) => 'echo: ' + text,`;

const guardrailFields = `name: 'not_empty',
  check: ({ raw }) => (raw.trim() === '' ? [false, 'Say something'] : [true]),`;

/** Module sources in ES module syntax: valid in every extension but .cjs. */
const esmStyles = {
  'a plain object as the default export': `const echo = {\n  ${toolFields}\n};\nexport default echo;\n`,
  'defineTool with a zod schema as the default export': `import { defineTool } from 'crewd/tools';
import { z } from 'zod';
export default defineTool({\n  ${zodToolFields}\n});\n`,
  'a named export': `export const echo = {\n  ${toolFields}\n};\nexport const unrelated = 'not a tool';\n`,
  'an array of tools as a named export': `export const tools = [{\n  ${toolFields}\n}];\n`,
  'defineGuardrail as the default export': `import { defineGuardrail } from 'crewd/tools';
export default defineGuardrail({\n  ${guardrailFields}\n});\n`,
  'a plain guardrail object as a named export': `export const notEmpty = {\n  ${guardrailFields}\n};\n`,
} as const;

/** Module sources in CommonJS syntax: valid wherever Node runs the module as CommonJS. */
const commonJsStyles = {
  'module.exports = tool': `module.exports = {\n  ${toolFields}\n};\n`,
  'exports.echo = tool': `exports.echo = {\n  ${toolFields}\n};\n`,
  'module.exports = { tool } with defineTool and zod required': `const { defineTool } = require('crewd/tools');
const { z } = require('zod');
const echo = defineTool({\n  ${zodToolFields}\n});
module.exports = { echo, helper: 'not a tool' };\n`,
  'module.exports = guardrail with defineGuardrail required': `const { defineGuardrail } = require('crewd/tools');
module.exports = defineGuardrail({\n  ${guardrailFields}\n});\n`,
} as const;

/** Whether Node runs a file of this extension as CommonJS in this directory. */
function runsAsCommonJs(extension: string, packaging: Packaging): boolean {
  if (extension === 'cjs' || extension === 'cts') return true;
  if (extension === 'mjs' || extension === 'mts') return false;
  return packaging !== 'package.json with "type": "module"';
}

interface Case {
  readonly packaging: Packaging;
  readonly extension: string;
  readonly style: string;
  readonly source: string;
}

const cases: Case[] = packagings.flatMap((packaging) =>
  ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'].flatMap((extension) => [
    ...(extension === 'cjs' ? [] : Object.entries(esmStyles)).map(([style, source]) => ({
      packaging,
      extension,
      style,
      source,
    })),
    ...(runsAsCommonJs(extension, packaging) ? Object.entries(commonJsStyles) : []).map(
      ([style, source]) => ({
        packaging,
        extension,
        style,
        source,
      }),
    ),
  ]),
);

/** Writes a crew directory holding one tools/ module to a new temporary directory outside this repository. */
function userCrewWith(file: string, source: string, packaging: Packaging): string {
  const crewDir = join(realpathSync(mkdtempSync(join(tmpdir(), 'crewd-tool-module-'))), 'my-crew');
  mkdirSync(join(crewDir, 'tools'), { recursive: true });
  writeFileSync(join(crewDir, 'tools', file), source);
  if (packaging !== 'no package.json') {
    const type = packaging === 'package.json with "type": "module"' ? { type: 'module' } : {};
    writeFileSync(join(crewDir, 'package.json'), JSON.stringify({ name: 'my-crew', private: true, ...type }));
  }
  return crewDir;
}

const context = {
  toolCallId: 'call_1',
  executionId: 'exec-1',
  taskId: 'task',
  agent: 'agent',
  abortSignal: new AbortController().signal,
};

describe('a tools/ module in a crew outside this repository', () => {
  it.each(cases)('loads $style from tools/echo.$extension with $packaging', async (crew) => {
    const source = crewToolsSource(userCrewWith(`echo.${crew.extension}`, crew.source, crew.packaging));

    await source.open();

    if (crew.style.includes('uardrail')) {
      expect(source.names()).toEqual([]);
      const guardrail = source.guardrail!('not_empty')!;
      const output = { raw: ' ', json: null, taskId: 't', description: 'd', expectedOutput: 'e', agent: 'a' };
      await expect(guardrail.check(output)).resolves.toEqual({ success: false, error: 'Say something' });
      await expect(guardrail.check({ ...output, raw: 'hi' })).resolves.toEqual({ success: true });
    } else {
      expect(source.names()).toEqual(['echo']);
      const echo = source.find('echo')!;
      expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
      await expect(echo.run({ text: 'hi' }, context)).resolves.toBe('echo: hi');
    }
  });

  it('finds every tool of a CommonJS module that exports several under names Node cannot guess', async () => {
    const source = `const make = (name) => ({ name, description: 'A tool', inputSchema: { type: 'object' }, run: () => name });
module.exports = { first: make('first'), ['sec' + 'ond']: make('second'), all: [make('third')] };\n`;

    const crewTools = crewToolsSource(userCrewWith('several.cjs', source, 'no package.json'));
    await crewTools.open();

    expect(crewTools.names()).toEqual(['first', 'second', 'third']);
  });

  it("uses the crew's own installed crewd/tools before crewd's", async () => {
    const crewDir = userCrewWith(
      'echo.ts',
      "import { defineTool } from 'crewd/tools';\nexport default defineTool({\n  " + toolFields + '\n});\n',
      'no package.json',
    );
    const installed = join(crewDir, 'node_modules/crewd');
    mkdirSync(installed, { recursive: true });
    writeFileSync(
      join(installed, 'package.json'),
      JSON.stringify({ name: 'crewd', exports: { './tools': './tools.cjs' } }),
    );
    writeFileSync(
      join(installed, 'tools.cjs'),
      "exports.defineTool = (tool) => ({ ...tool, description: 'installed: ' + tool.description });\n",
    );

    const source = crewToolsSource(crewDir);
    await source.open();

    expect(source.find('echo')!.description).toBe('installed: Says its text again');
  });

  it('still names the file of a module that exports no tool, whichever way it ran', async () => {
    const crewTools = crewToolsSource(
      userCrewWith('helpers.ts', "export const greeting = 'hello';\n", 'no package.json'),
    );

    await expect(crewTools.open()).rejects.toThrow(/^tools\/helpers\.ts: exports no tool: /);
  });
});
