import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CrewLoadError } from '../domain/errors.ts';
import { loadCrew } from './load-crew.ts';

const agents = 'writer:\n  role: Writer\n  goal: Write\n  backstory: Writes.\n';

/** A crew directory whose one task `draft` has these extra tasks.yaml lines. */
function crewWith(taskLines: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'crewd-review-deadlines-'));
  writeFileSync(path.join(dir, 'agents.yaml'), agents);
  writeFileSync(
    path.join(dir, 'tasks.yaml'),
    `draft:\n  description: Draft.\n  expected_output: Text.\n  agent: writer\n${taskLines}`,
  );
  return dir;
}

async function loadError(taskLines: string): Promise<CrewLoadError> {
  const error = await loadCrew(crewWith(taskLines), { warn: () => {} }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(CrewLoadError);
  return error as CrewLoadError;
}

describe('review deadlines in tasks.yaml', () => {
  it('reads a deadline that approves, and one that rejects with feedback, warning of neither', async () => {
    const warnings: string[] = [];
    const approving = await loadCrew(
      crewWith('  human_input: true\n  human_input_deadline: 2h\n  human_input_on_deadline: approve\n'),
      { warn: (message) => warnings.push(message) },
    );
    expect(approving.tasks[0]?.reviewDeadline).toEqual({ afterMs: 7_200_000, outcome: { approve: true } });

    const rejecting = await loadCrew(
      crewWith(
        '  human_input: true\n  human_input_deadline: 45m\n  human_input_on_deadline:\n    reject: Shorter, please.\n',
      ),
      { warn: (message) => warnings.push(message) },
    );
    expect(rejecting.tasks[0]?.reviewDeadline).toEqual({
      afterMs: 2_700_000,
      outcome: { approve: false, feedback: 'Shorter, please.' },
    });
    expect(warnings).toEqual([]);
  });

  it('names the file and key of a deadline that is not a duration, or an outcome it does not know', async () => {
    const duration = await loadError(
      '  human_input: true\n  human_input_deadline: soon\n  human_input_on_deadline: approve\n',
    );
    expect(duration.message).toMatch(/tasks\.yaml.*draft\.human_input_deadline.*duration/);
    const outcome = await loadError(
      '  human_input: true\n  human_input_deadline: 1h\n  human_input_on_deadline: ignore\n',
    );
    expect(outcome.message).toMatch(/draft\.human_input_on_deadline.*approve, or reject/);
  });

  it('refuses a deadline on a task without human input, or one half of the pair without the other', async () => {
    expect(
      (await loadError('  human_input_deadline: 1h\n  human_input_on_deadline: approve\n')).message,
    ).toMatch(/draft\.human_input_deadline.*needs human_input: true/);
    expect((await loadError('  human_input: true\n  human_input_deadline: 1h\n')).message).toMatch(
      /needs human_input_on_deadline/,
    );
    expect((await loadError('  human_input: true\n  human_input_on_deadline: approve\n')).message).toMatch(
      /draft\.human_input_on_deadline.*needs human_input_deadline/,
    );
  });
});
