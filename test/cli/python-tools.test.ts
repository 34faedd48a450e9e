import { readFileSync, symlinkSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { userCrew } from '../support/user-crew.ts';
import { runCrewd } from './crewd-command.ts';

const fixture = resolve(import.meta.dirname, '../fixtures/crewai-projects/tool_bench');
const env = { MODEL: 'openai/gpt-4o-mini', OPENAI_API_KEY: 'sk-test' };
const toolFile = 'src/tool_bench/tools/custom_tool.py';

/** A copy of the project with one of its files changed. */
function projectWith(file: string, change: (text: string) => string): string {
  const dir = userCrew(fixture);
  const path = join(dir, file);
  writeFileSync(path, change(readFileSync(path, 'utf8')));
  return dir;
}

describe('crewd check with Python tools', () => {
  it('lists each Python tool with its file and line, its name for the model and the interpreter that runs it', async () => {
    const result = await runCrewd(['check', userCrew(fixture)], { env });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '    tools: lookup_fact, WordCountTool("words", separator=" "), noisy_tool,',
    );
    expect(result.stdout).toContain(
      `\nPython tools:\n  - lookup_fact ("Fact Lookup", offered to the model as fact_lookup) at ${toolFile}:11\n` +
        `  - WordCountTool ("Word Counter", offered to the model as word_counter) at ${toolFile}:22\n`,
    );
    expect(result.stdout).toMatch(
      /\n {2}- run by python3 \(from PATH\): Python 3\.\d+\.\d+, crewd's stand-in for crewai\.tools\n/,
    );
  });

  it("runs the tools with the project's .venv when it has one", async () => {
    const dir = userCrew(fixture);
    mkdirSync(join(dir, '.venv/bin'), { recursive: true });
    symlinkSync('/usr/bin/python3', join(dir, '.venv/bin/python'));

    const result = await runCrewd(['check', dir], { env });

    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `  - run by ${join(dir, '.venv/bin/python')} (from the project's .venv): Python 3.`,
    );
  });

  it('refuses an interpreter that does not exist, naming the tool it would run', async () => {
    const result = await runCrewd(['check', userCrew(fixture)], {
      env: { ...env, CREWD_PYTHON: '/nowhere/bin/python3' },
    });

    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`${toolFile}:line 11: Python tool lookup_fact: `);
    expect(result.stderr).toContain(
      "/nowhere/bin/python3 (from CREWD_PYTHON) cannot run it: could not start '/nowhere/bin/python3' (ENOENT)",
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a tool module that does not import, with the Python error and where it happened', async () => {
    const dir = projectWith(toolFile, (text) =>
      text.replace('import threading\n', 'import threading\nimport not_a_package_anywhere\n'),
    );

    const result = await runCrewd(['check', dir], { env });

    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`${toolFile}:line 12: Python tool lookup_fact: `);
    expect(result.stderr).toContain(
      `ModuleNotFoundError: No module named 'not_a_package_anywhere' (${toolFile}:4)`,
    );
  });

  it("refuses a crewai_tools tool the project's Python lacks and crewd has no built-in of", async () => {
    const dir = projectWith('src/tool_bench/crew.py', (text) =>
      text
        .replace(
          'from crewai.project import',
          'from crewai_tools import CSVSearchTool\nfrom crewai.project import',
        )
        .replace(
          '                host_process,\n',
          '                host_process,\n                CSVSearchTool(csv="data.csv"),\n',
        ),
    );

    const result = await runCrewd(['check', dir], { env });

    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('src/tool_bench/crew.py:line 36: Python tool CSVSearchTool: ');
    expect(result.stderr).toContain(
      "python3 (from PATH) has no crewai_tools with it (ModuleNotFoundError: No module named 'crewai_tools'), and crewd has no built-in tool of that name",
    );
  });

  it('refuses a tool class that cannot be built with the arguments crew.py gives it', async () => {
    const dir = projectWith('src/tool_bench/crew.py', (text) =>
      text.replace('WordCountTool("words", separator=" ")', 'WordCountTool(separator=" ")'),
    );

    const result = await runCrewd(['check', dir], { env });

    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`${toolFile}:line 22: Python tool WordCountTool: `);
    expect(result.stderr).toContain(
      "TypeError: WordCountTool.__init__() missing 1 required positional argument: 'unit'",
    );
  });

  it("lets a TypeScript tool of the same name in tools/ take the Python tool's place", async () => {
    const dir = projectWith(toolFile, (text) =>
      text.replace('import threading\n', 'import threading\nimport not_a_package_anywhere\n'),
    );
    mkdirSync(join(dir, 'tools'));
    for (const name of [
      'lookup_fact',
      'WordCountTool',
      'noisy_tool',
      'broken_tool',
      'slow_tool',
      'read_env',
      'crewd_variables',
      'AsyncEchoTool',
      'host_process',
    ]) {
      writeFileSync(
        join(dir, 'tools', `${name}.mjs`),
        `export default { name: '${name}', description: 'stands in', inputSchema: { type: 'object' }, run: () => 'ts' };\n`,
      );
    }

    const result = await runCrewd(['check', dir], { env });

    // The module that does not import is never imported: every tool it holds has a TypeScript stand-in.
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('Python tools:');
  });

  it('refuses to serve a crew whose Python tool cannot be built, before any model call', async () => {
    const dir = projectWith(toolFile, (text) =>
      text.replace('import threading\n', 'import threading\nimport not_a_package_anywhere\n'),
    );

    const result = await runCrewd(['serve', dir, '--port', '0', '--database', join(dir, 'crewd.db')], {
      env,
    });

    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`ModuleNotFoundError: No module named 'not_a_package_anywhere'`);
  });
});
