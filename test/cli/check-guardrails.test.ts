import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { userCrew } from '../support/user-crew.ts';
import { repoRoot, runCrewd } from './crewd-command.ts';

const env = { MODEL: 'openai/gpt-4o-mini', OPENAI_API_KEY: 'sk-test' };

/** A copy of the market_brief project whose brief_task has a Python guardrail function. */
function projectWithPythonGuardrail(): string {
  const dir = userCrew(join(repoRoot, 'test/fixtures/crewai-projects/market_brief'));
  const crewPy = join(dir, 'src/market_brief/crew.py');
  const text = readFileSync(crewPy, 'utf8')
    .replace('\n\n@CrewBase', '\n\ndef check_brief(output):\n    return (True, output)\n\n\n@CrewBase')
    .replace(
      'output_json=Brief,',
      'output_json=Brief,\n            guardrails=[check_brief, "Cite a source"],',
    );
  writeFileSync(crewPy, text);
  return dir;
}

describe('crewd check and guardrails', () => {
  it('stops a crew whose Python guardrail function has no TypeScript guardrail, saying where and how', async () => {
    const dir = projectWithPythonGuardrail();

    const result = await runCrewd(['check', dir], { env });

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /- Task 'brief_task' uses guardrail 'check_brief', which is the Python function src\/market_brief\/crew\.py:\d+, which crewd cannot run; it needs a TypeScript guardrail of that name: add tools\/check_brief\.ts exporting defineGuardrail\(\{ name: 'check_brief', check \}\) from 'crewd\/tools'\n/,
    );
    expect(result.stdout).toContain('     guardrails: check_brief (not available), "Cite a source"');
  });

  it('runs it as written once tools/ defines the guardrail of that name', async () => {
    const dir = projectWithPythonGuardrail();
    mkdirSync(join(dir, 'tools'));
    // What the message above asks for, in a copy that lies outside any Node project.
    writeFileSync(
      join(dir, 'tools/check_brief.ts'),
      "import { defineGuardrail } from 'crewd/tools';\n\nexport default defineGuardrail({ name: 'check_brief', check: () => [true] });\n",
    );

    const result = await runCrewd(['check', dir], { env });

    expect(result.stdout).toContain(
      '     guardrails: check_brief (tools/), "Cite a source" (checked by the agent\'s model); up to 3 retries each\n',
    );
    expect(result.stdout).toContain('Nothing is left out: crewd runs this crew as written.\n');
    expect(result.code).toBe(0);
  });
});
