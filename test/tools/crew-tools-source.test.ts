import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crewToolsSource } from '../../src/tools/crew-tools/crew-tools-source.ts';
import { userCrew } from '../support/user-crew.ts';

const fixtures = join(import.meta.dirname, '../fixtures/tool-modules');
const context = (taskId: string) => ({
  toolCallId: 'call_1',
  executionId: 'exec-1',
  taskId,
  agent: 'agent',
  abortSignal: new AbortController().signal,
});

describe("the crew's tools/ directory", () => {
  it('loads defineTool modules in TypeScript with zod schemas and plain JavaScript objects', async () => {
    const source = crewToolsSource(userCrew(join(fixtures, 'zod-and-plain')));
    await source.open();

    expect(source.names()).toEqual(['shout', 'weather']);
    const shout = source.find('shout')!;
    expect(shout.inputSchema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' }, times: { type: 'integer', default: 1 } },
      required: ['text'],
    });
    // zod applies the default the model left out.
    await expect(shout.run({ text: 'hi' }, context('t'))).resolves.toBe('HI!');
    // A result that is not a string reaches the model as JSON.
    await expect(source.find('weather')!.run({ city: 'Oslo' }, context('forecast'))).resolves.toBe(
      '{"city":"Oslo","sky":"clear","task":"forecast"}',
    );
    expect(source.status()).toEqual({ label: "the crew's tools/ directory", up: true });
    await source.close();
  });

  it('loads guardrails from a module that exports no tool, turning their results into verdicts', async () => {
    const source = crewToolsSource(userCrew(join(fixtures, 'guardrails')));
    await source.open();
    const output = (raw: string) => ({
      raw,
      json: null,
      taskId: 't',
      description: 'd',
      expectedOutput: 'e',
      agent: 'a',
    });

    expect(source.names()).toEqual([]);
    const lowerCase = source.guardrail!('lower_case')!;
    await expect(lowerCase.check(output(' quiet '))).resolves.toEqual({ success: true, result: 'quiet' });
    await expect(lowerCase.check(output('LOUD'))).resolves.toEqual({
      success: false,
      error: 'Write in lower case',
    });
    await expect(source.guardrail!('unclear')!.check(output('x'))).rejects.toThrow(
      "guardrail 'unclear' must return [true], [true, result] or [false, feedback]",
    );
    expect(source.guardrail!('missing')).toBeUndefined();
  });

  it('has no tools when the crew has no tools/ directory', async () => {
    const source = crewToolsSource(join(fixtures, 'no-such-crew'));
    await source.open();
    expect(source.names()).toEqual([]);
  });

  it.each([
    ['broken', /^tools\/oops\.js: could not be loaded: /],
    ['empty', /^tools\/none\.mjs: exports no tool: export default defineTool/],
    ['duplicate', /^tools\/two\.mjs: defines tool 'same' again; tool names must be unique$/],
    [
      'duplicate-guardrail',
      /^tools\/one\.mjs: defines guardrail 'same' again; guardrail names must be unique$/,
    ],
    ['bad-name', /^tools\/spaced\.mjs: tool name 'has spaces' must be 1 to 64 letters/],
  ])('refuses the %s module naming its file', async (crew, message) => {
    await expect(crewToolsSource(userCrew(join(fixtures, crew))).open()).rejects.toThrow(message);
  });
});
