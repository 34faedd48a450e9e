import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CrewLoadError } from '../domain/errors.ts';
import { loadCrew } from './load-crew.ts';

const agents = 'writer:\n  role: Writer\n  goal: Write\n  backstory: Writes.\n';

/** A crew directory whose one task `write` has these extra tasks.yaml lines. */
function crewWith(taskLines: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'crewd-guardrails-'));
  writeFileSync(path.join(dir, 'agents.yaml'), agents);
  writeFileSync(
    path.join(dir, 'tasks.yaml'),
    `write:\n  description: Write.\n  expected_output: Text.\n  agent: writer\n${taskLines}`,
  );
  return dir;
}

describe('task guardrails in tasks.yaml', () => {
  it('reads a description, a function and the retries, reporting none of them as not honoured', async () => {
    const dropped: string[] = [];
    const crew = await loadCrew(
      crewWith('  guardrails:\n    - Be kind\n    - function: word_limit\n  guardrail_max_retries: 5\n'),
      { warn: (message) => dropped.push(message) },
    );

    expect(crew.tasks[0]).toMatchObject({
      guardrails: [
        { kind: 'llm', description: 'Be kind' },
        { kind: 'function', name: 'word_limit' },
      ],
      guardrailMaxRetries: 5,
    });
    expect(dropped).toEqual([]);
  });

  it("follows crewAI: guardrails wins over guardrail, max_retries is guardrail_max_retries' older name", async () => {
    const crew = await loadCrew(
      crewWith('  guardrail: Ignored\n  guardrails: Be brief\n  max_retries: 0\n'),
      { warn: () => undefined },
    );

    expect(crew.tasks[0]).toMatchObject({
      guardrails: [{ kind: 'llm', description: 'Be brief' }],
      guardrailMaxRetries: 0,
    });
  });

  it("takes crewAI's JSON reference to a Python function as the TypeScript guardrail of its name", async () => {
    const crew = await loadCrew(crewWith('  guardrail:\n    python: my_project.checks.word_limit\n'), {
      warn: () => undefined,
    });

    expect(crew.tasks[0]?.guardrails).toEqual([
      { kind: 'function', name: 'word_limit', pythonOrigin: 'my_project.checks.word_limit' },
    ]);
  });

  it.each([
    ['a number', '  guardrail: 42\n', 'tasks.yaml:line 5 (write.guardrail): must be a description'],
    [
      'an empty description',
      "  guardrails: ['']\n",
      'tasks.yaml:line 5 (write.guardrails[0]): must be a description',
    ],
    [
      'a function name with spaces',
      '  guardrail:\n    function: word limit\n',
      "tasks.yaml:line 6 (write.guardrail.function): must be 1 to 64 letters, digits, '_', '.' or '-'",
    ],
    [
      'negative retries',
      '  guardrail: Be kind\n  guardrail_max_retries: -1\n',
      'tasks.yaml:line 6 (write.guardrail_max_retries): must be at least 0',
    ],
  ])('refuses %s with file, key and line', async (_name, lines, message) => {
    const loading = loadCrew(crewWith(lines), { warn: () => undefined });
    await expect(loading).rejects.toBeInstanceOf(CrewLoadError);
    await expect(loading).rejects.toThrow(message);
  });
});

describe('task guardrails in a JSONC crew', () => {
  it('reads them as tasks.yaml does', async () => {
    const fixture = fileURLToPath(
      new URL('../../test/fixtures/crewai-projects/trip_planner_jsonc', import.meta.url),
    );
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'crewd-jsonc-')), 'project');
    cpSync(fixture, dir, { recursive: true });
    const file = path.join(dir, 'crew.jsonc');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        '"agent": "scout",',
        '"agent": "scout", "guardrails": ["Name real places", {"function": "three_lines"}], "guardrail_max_retries": 1,',
      ),
    );

    const crew = await loadCrew(dir, { warn: () => undefined });

    expect(crew.tasks[0]).toMatchObject({
      guardrails: [
        { kind: 'llm', description: 'Name real places' },
        { kind: 'function', name: 'three_lines' },
      ],
      guardrailMaxRetries: 1,
    });
  });
});
