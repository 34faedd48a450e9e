import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../support/fake-openai-server.ts';
import { userCrew } from '../support/user-crew.ts';
import { exampleCrew, exampleInputs, runCrewd, tempDir } from './crewd-command.ts';

describe('crewd run', () => {
  it('runs the example crew offline, asks for the review on stdin and prints the report and token usage', async () => {
    const result = await runCrewd(['run', exampleCrew, '--inputs', exampleInputs], {
      input: 'y\nLooks good\n',
    });

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^# AI Agents in 2026: From Demos to Dependable Work\n/);
    expect(result.stdout).toContain('## Risks and rules');
    expect(result.stderr).toContain('▶ research_task (AI agents Senior Data Researcher)');
    expect(result.stderr).toMatch(/✓ outline_task — \d+ tokens, waiting for review/);
    expect(result.stderr).toContain('Approve? [y/N] y\nFeedback: Looks good\n');
    expect(result.stderr).toMatch(/✓ report_task — \d+ tokens/);
    const usage = /Token usage: (\d+) total \((\d+) prompt, (\d+) completion\) over 3 requests/.exec(
      result.stderr,
    );
    expect(usage).not.toBeNull();
    const [, total, prompt, completion] = usage!.map(Number);
    expect(total).toBe(prompt! + completion!);
    expect(total).toBeGreaterThan(0);
  });

  it('runs a rejected outline again with the feedback from a feedback file, then follows the revision', async () => {
    const feedbackFile = join(tempDir(), 'feedback.txt');
    writeFileSync(feedbackFile, 'n\nMake it more concrete\ny\n\n');

    const result = await runCrewd([
      'run',
      exampleCrew,
      '--inputs',
      exampleInputs,
      '--feedback-file',
      feedbackFile,
    ]);

    expect(result.code).toBe(0);
    expect(result.stderr).toContain('outline_task (AI agents Reporting Analyst, attempt 2)');
    expect(result.stdout).toMatch(/^# AI Agents in 2026: What Works, What It Costs, What to Watch\n/);
    expect(result.stderr).toMatch(/over 4 requests/);
  });

  it("runs the example crew offline to the end with a newcomer's own topic and feedback, the report a labelled stand-in", async () => {
    const crew = userCrew(exampleCrew);
    const inputs = JSON.stringify({ topic: 'Tide pools', current_year: '2026' });

    const [approved, rejectedThenApproved] = await Promise.all([
      runCrewd(['run', crew, '--inputs', inputs], { input: 'y\nok\n' }),
      runCrewd(['run', crew, '--inputs', inputs], { input: 'n\n\ny\n\n' }),
    ]);

    for (const result of [approved, rejectedThenApproved]) {
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        /^Offline stand-in answer: no model wrote this\. The replay file "research-crew\.replay\.json" has no recording/,
      );
      expect(result.stdout).toContain('Asked for: Write the report on Tide pools');
      expect(result.stderr).toMatch(/✓ report_task — 0 tokens/);
    }
    expect(rejectedThenApproved.stderr).toContain('outline_task (Tide pools Reporting Analyst, attempt 2)');
  });

  it('runs a crew whose model is named as crewAI names it, with its settings, on a local Ollama server', async () => {
    const fake = await startFakeOpenAI();
    try {
      const crew = join(import.meta.dirname, 'crews/ollama-model');
      // Ollama is configured by its root URL; its OpenAI-compatible API lives under /v1.
      const result = await runCrewd(['run', crew, '--inputs', '{"topic": "tides"}'], {
        env: { OLLAMA_API_BASE: fake.url.replace(/\/v1$/, '') },
      });

      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Fake answer to: .*Research tides\./);
      expect(fake.requests.at(-1)!.body).toMatchObject({
        model: 'llama3.1',
        temperature: 0.2,
        max_tokens: 500,
      });
      expect(fake.requests.at(-1)!.headers.authorization).toBeUndefined();
    } finally {
      await fake.close();
    }
  });

  it('refuses before running a crew whose model has an unknown provider prefix, naming the agent', async () => {
    const crew = join(tempDir(), 'unknown-prefix');
    mkdirSync(crew);
    writeFileSync(
      join(crew, 'agents.yaml'),
      'writer:\n  role: Writer\n  goal: Write\n  backstory: You write.\n  llm: watsonx/granite-13b\n',
    );
    writeFileSync(
      join(crew, 'tasks.yaml'),
      'write:\n  description: Write.\n  expected_output: Text.\n  agent: writer\n',
    );

    const result = await runCrewd(['run', crew]);

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^crewd: Agent 'writer': model "watsonx\/granite-13b" has an unknown provider prefix "watsonx\/"; use one of openai\/, .*\n$/,
    );
  });

  it('runs the tools example offline: an MCP server over stdio and a TypeScript tool, each call shown as it happens', async () => {
    // Run where it ships, as the README runs it: its MCP server imports the SDK from crewd's own packages.
    const toolsCrew = join(import.meta.dirname, '../../examples/tools-crew');

    const result = await runCrewd(['run', toolsCrew, '--inputs', '{"city": "Lisbon"}']);

    expect(result.code).toBe(0);
    expect(result.stderr).toContain('↳ weather.forecast {"city":"Lisbon"}');
    expect(result.stderr).toContain('↳ packing_list {"high_c":24,"rain":false}');
    // The packing list is the TypeScript tool's own output, passed on by the model.
    expect(result.stdout).toBe(
      'Tomorrow in Lisbon: sunny, high 24 °C, low 16 °C, light wind.\n\n' +
        '- water bottle\n- phone charger\n- sunscreen\n- sunglasses\n- a light shirt\n',
    );
    expect(result.stderr).toMatch(/over 3 requests/);
  });

  it('runs the hierarchical example offline: the manager delegates each task and the writer asks the researcher', async () => {
    const hierarchicalCrew = join(import.meta.dirname, '../../examples/hierarchical-crew');

    const result = await runCrewd(['run', hierarchicalCrew, '--inputs', '{"topic": "tides"}']);

    expect(result.code).toBe(0);
    expect(result.stderr).toContain('▶ research_task (Crew Manager)');
    expect(result.stderr).toContain('▶ brief_task (Crew Manager)');
    expect(result.stderr).toContain('↳ Delegate work to coworker {"task":"Gather three facts about tides');
    expect(result.stderr).toContain('↳ Writer: Ask question to coworker {"question":"Which of these facts');
    expect(result.stderr).toContain('↳ Researcher answered');
    expect(result.stdout).toBe(
      'Tides come from the Moon pulling on the oceans.\n' +
        'Most coasts get two highs and two lows a day.\n' +
        'The biggest, spring tides, arrive at new and full moon.\n',
    );
    expect(result.stderr).toMatch(/over 8 requests/);
  });

  it('runs the tools and hierarchical examples offline with other inputs: each task ends in a labelled stand-in, with no tool call', async () => {
    const [tools, hierarchical] = await Promise.all([
      runCrewd([
        'run',
        join(import.meta.dirname, '../../examples/tools-crew'),
        '--inputs',
        '{"city": "Reykjavík"}',
      ]),
      runCrewd([
        'run',
        join(import.meta.dirname, '../../examples/hierarchical-crew'),
        '--inputs',
        '{"topic": "volcanoes"}',
      ]),
    ]);

    expect(tools.code).toBe(0);
    expect(tools.stdout).toMatch(
      /^Offline stand-in answer: no model wrote this\. The replay file "tools-crew\.replay\.json"/,
    );
    expect(tools.stdout).toContain("Asked for: Look up tomorrow's weather in Reykjavík");
    expect(tools.stderr).not.toContain('↳');
    expect(hierarchical.code).toBe(0);
    expect(hierarchical.stdout).toMatch(
      /^Offline stand-in answer: no model wrote this\. The replay file "hierarchical-crew\.replay\.json"/,
    );
    expect(hierarchical.stderr).not.toContain('↳');
  });

  it('stops with one line naming the directory when the crew directory does not exist', async () => {
    const missing = join(tempDir(), 'no-such-crew');

    const result = await runCrewd(['run', missing, '--inputs', exampleInputs]);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^crewd: .*no-such-crew.*\n$/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a crew naming a tool no source provides before the first model call', async () => {
    const crew = join(import.meta.dirname, 'crews/unknown-tool');

    const result = await runCrewd(['run', crew, '--inputs', '{"topic": "tides"}'], {
      env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
    });

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^crewd: Agent 'searcher' uses tool 'web_search', which no tool source provides: /,
    );
    expect(result.stderr).not.toContain('▶');
  });

  it('stops before running anything and lists the inputs that are missing', async () => {
    const result = await runCrewd(['run', exampleCrew, '--inputs', '{"topic": "AI agents"}']);

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^crewd: Missing required inputs: current_year;.*\n$/);
    expect(result.stderr).not.toContain('▶');
  });
});
