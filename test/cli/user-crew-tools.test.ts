import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeOpenAI,
  type FakeOpenAIServer,
  type RecordedRequest,
} from '../support/fake-openai-server.ts';
import { runCrewd } from './crewd-command.ts';

// A new user's crew, written where users keep crews: a directory of its own outside this repository, with no
// package.json and nothing installed, so its .ts tools run as CommonJS.

const echoTool = `const echo = {
  name: 'echo',
  description: 'Says its text again',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  run: ({ text }: { text: string }) => \`echo: \${text}\`,
};
export default echo;
`;

// The README's own example, word for word: crewd/tools and zod come from crewd when the crew has neither.
const wordCountTool = `import { defineTool } from 'crewd/tools';
import { z } from 'zod';

export default defineTool({
  name: 'word_count',
  description: 'Counts the words in a text',
  inputSchema: z.object({ text: z.string() }), // or a JSON Schema object
  timeoutMs: 10_000, // optional; 60 s by default
  run: ({ text }, context) => String(text.split(/\\s+/).filter(Boolean).length),
});
`;

const signedGuardrail = `import { defineGuardrail } from 'crewd/tools';

export const signed = defineGuardrail({
  name: 'signed',
  check: ({ raw }) => (raw.endsWith('— crew') ? [true] : [false, 'Sign the answer with "— crew"']),
});
`;

function writeUserCrew(): string {
  const crewDir = join(realpathSync(mkdtempSync(join(tmpdir(), 'crewd-new-user-'))), 'my-crew');
  mkdirSync(join(crewDir, 'tools'), { recursive: true });
  writeFileSync(
    join(crewDir, 'agents.yaml'),
    [
      'helper:',
      '  role: Helper',
      '  goal: Repeat {word} and count its words',
      '  backstory: You use your tools.',
      '  llm: openai/gpt-4o-mini',
      '  tools: [echo, word_count]',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(crewDir, 'tasks.yaml'),
    [
      'echo_task:',
      '  description: Repeat {word}, then count its words.',
      '  expected_output: The repeated word and the count, signed.',
      '  agent: helper',
      '  guardrail:',
      '    function: signed',
      '',
    ].join('\n'),
  );
  writeFileSync(join(crewDir, 'tools/echo.ts'), echoTool);
  writeFileSync(join(crewDir, 'tools/word-count.ts'), wordCountTool);
  writeFileSync(join(crewDir, 'tools/signed.ts'), signedGuardrail);
  return crewDir;
}

const toolResults = (request: RecordedRequest): string[] =>
  (request.body.messages as { role: string; content: unknown }[])
    .filter((message) => message.role === 'tool')
    .map((message) => String(message.content));

let model: FakeOpenAIServer;
const env = { OPENAI_API_KEY: 'sk-test' };

beforeAll(async () => {
  model = await startFakeOpenAI({
    respond: (request) => {
      const results = toolResults(request);
      if (results.length === 0) return { toolCalls: [{ name: 'echo', arguments: { text: 'tides' } }] };
      if (results.length === 1)
        return { toolCalls: [{ name: 'word_count', arguments: { text: 'tide pools' } }] };
      const answer = `${results[0]}, ${results[1]} words`;
      // Signed only once the guardrail's feedback asks for it.
      return {
        content: JSON.stringify(request.body).includes('Sign the answer') ? `${answer} — crew` : answer,
      };
    },
  });
});

afterAll(async () => {
  await model.close();
});

describe('a crew outside this repository with its own TypeScript tools and guardrail', () => {
  it('passes crewd check, its tools and guardrail found', async () => {
    const result = await runCrewd(['check', writeUserCrew()], { env });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('    tools: echo, word_count\n');
    expect(result.stdout).toContain('Nothing is left out: crewd runs this crew as written.');
  });

  it('runs with crewd run, each tool answering the model and the guardrail sending the unsigned answer back', async () => {
    const result = await runCrewd(['run', writeUserCrew(), '--inputs', '{"word": "tides"}'], {
      env: { ...env, OPENAI_BASE_URL: model.url },
    });

    expect(result.stderr).not.toMatch(/^crewd:/m);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('↳ echo {"text":"tides"}');
    expect(result.stderr).toContain('↳ word_count {"text":"tide pools"}');
    expect(result.stdout).toBe('echo: tides, 2 words — crew\n');
    expect(JSON.stringify(model.requests.at(-1)!.body)).toContain('Sign the answer with');
  });
});
