import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeOpenAI,
  type FakeOpenAIServer,
  type FakeReply,
  type RecordedRequest,
} from '../support/fake-openai-server.ts';
import { offeredTools, systemText, toolResultText, userText } from '../support/model-requests.ts';
import { userCrew } from '../support/user-crew.ts';
import { repoRoot, runCrewd, tempDir } from './crewd-command.ts';

const project = (name: string): string => join(repoRoot, 'test/fixtures/crewai-projects', name);

let model: FakeOpenAIServer;

/** The tool results a recorded model request carries, in order. */
const toolResults = (request: RecordedRequest): string[] =>
  (request.body.messages as { role: string; content: unknown }[])
    .filter((message) => message.role === 'tool')
    .map((message) => String(message.content));

/** The analyst of stock_research_ts: looks up the figures, has the ratio worked out, then answers with it. */
function analyst(request: RecordedRequest): FakeReply {
  const results = toolResults(request);
  if (results.length === 0)
    return { toolCalls: [{ name: 'latest_figures', arguments: { company: 'ACME' } }] };
  if (results.length === 1)
    return { toolCalls: [{ name: 'PriceEarningsTool', arguments: { price: 42, earnings: 3.5 } }] };
  return { content: `Fairly priced at a P/E of ${results[1]}.` };
}

/** support_desk's manager hands the question to the billing specialist, then passes the answer on. */
function manager(request: RecordedRequest): FakeReply {
  const result = toolResultText(request);
  if (result !== undefined) return { content: `Manager: ${result}` };
  const task = 'Explain the double charge on invoice 7';
  return {
    toolCalls: [
      {
        name: 'Delegate_work_to_coworker',
        arguments: { task, context: 'Asked by Dana', coworker: 'Billing Specialist' },
      },
    ],
  };
}

beforeAll(async () => {
  model = await startFakeOpenAI({
    respond: (request) => {
      if (offeredTools(request).includes('PriceEarningsTool')) return analyst(request);
      if (systemText(request).includes('Crew Manager')) return manager(request);
      if (systemText(request).startsWith('You are Billing Specialist'))
        return { content: 'Invoice 7 was charged twice; the second charge is refunded.' };
      const text = userText(request);
      if (text.includes('Conduct a thorough research')) return { content: '- Point one\n- Point two' };
      if (text.includes('worth seeing in Lyon')) return { content: '1. Fourvière\n2. Traboules\n3. Halles' };
      if (text.includes('Critique this poem'))
        return { content: 'The rhyme works. The metre limps. Keep going.' };
      return { content: `# Report\n\nAbout ${/about (\S+)/.exec(text)?.[1] ?? 'the topic'}.` };
    },
  });
});

afterAll(async () => {
  await model.close();
});

describe('crewAI projects in the terminal', () => {
  it("runs crewAI's project template from its root as written, with the model and key from the project's .env", async () => {
    const before = model.requests.length;
    const outputDir = tempDir();

    const result = await runCrewd(
      [
        'run',
        project('latest_ai_development'),
        '--output-dir',
        outputDir,
        '--inputs',
        '{"topic": "AI LLMs", "current_year": "2026"}',
      ],
      { env: { OPENAI_BASE_URL: model.url } },
    );

    expect(result.stderr).not.toMatch(/^crewd:/m);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('# Report');
    const requests = model.requests.slice(before);
    expect(requests.map((request) => request.body.model)).toEqual(['gpt-4o-mini', 'gpt-4o-mini']);
    expect(requests.map((request) => request.headers.authorization)).toEqual([
      'Bearer sk-from-dotenv-file',
      'Bearer sk-from-dotenv-file',
    ]);
    expect(userText(requests[0]!)).toContain('Conduct a thorough research about AI LLMs');
    // The template's reporting_task has output_file="report.md": the report is saved there, as crewAI saves it.
    expect(readFileSync(join(outputDir, 'report.md'), 'utf8')).toBe(result.stdout.trim());
  });

  it('lets a variable of the real environment win over the same one in .env', async () => {
    const before = model.requests.length;

    const result = await runCrewd(
      [
        'run',
        project('latest_ai_development'),
        '--output-dir',
        tempDir(),
        '--inputs',
        '{"topic": "AI LLMs", "current_year": "2026"}',
      ],
      { env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-from-real-environment' } },
    );

    expect(result.code).toBe(0);
    const requests = model.requests.slice(before);
    expect(requests.length).toBe(2);
    for (const request of requests)
      expect(request.headers.authorization).toBe('Bearer sk-from-real-environment');
  });
});

describe('crews inside a crewAI Flow project', () => {
  it('refuses to guess when the project holds several crews, and lists them', async () => {
    const result = await runCrewd(['run', project('poem_flow'), '--inputs', '{}'], {
      env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test' },
    });

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'crewd: src: holds several crews (critic_crew, poem_crew); choose one with --crew <name>\n',
    );
  });

  it('runs the crew --crew names, with the agent its crew.py assigns to the task', async () => {
    const before = model.requests.length;

    const result = await runCrewd(
      ['run', project('poem_flow'), '--crew', 'critic_crew', '--inputs', '{"poem": "Roses are red."}'],
      { env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test' } },
    );

    expect(result.stderr).not.toMatch(/^crewd:/m);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('The metre limps.');
    const requests = model.requests.slice(before);
    expect(requests.map((request) => request.body.model)).toEqual(['gpt-4o']);
    expect(userText(requests[0]!)).toContain('Roses are red.');
  });

  it('names the crews there are when --crew names none of them', async () => {
    const result = await runCrewd(['run', project('poem_flow'), '--crew', 'haiku_crew'], {
      env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test' },
    });

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'crewd: src: holds no crew named "haiku_crew"; its crews are critic_crew, poem_crew\n',
    );
  });
});

describe('a JSONC crew (crewAI 1.15 and later)', () => {
  it('runs crew.jsonc with its agents/*.jsonc, each agent with its own model', async () => {
    const before = model.requests.length;

    const result = await runCrewd(
      ['run', project('trip_planner_jsonc'), '--inputs', '{"city": "Lyon", "month": "May"}'],
      { env: { OPENAI_BASE_URL: model.url } },
    );

    expect(result.stderr).not.toMatch(/^crewd:/m);
    expect(result.code).toBe(0);
    const requests = model.requests.slice(before);
    expect(requests.map((request) => request.body.model)).toEqual(['gpt-4o-mini', 'gpt-4o']);
    expect(requests[0]!.headers.authorization).toBe('Bearer sk-jsonc-project');
    expect(userText(requests[1]!)).toContain('Fourvière');
  });
});

// memory=True is written on the line after the template's `process=Process.sequential,` (line 51).
const memoryLine =
  'src/latest_ai_development/crew.py:52 (memory): crewd does not do memory yet: agents remember nothing beyond each task and its context';

/** crewAI's template with `memory=True` on its Crew: a part crewd does not honour yet. */
function templateWithMemory(): string {
  const copy = join(tempDir(), 'latest_ai_development');
  cpSync(project('latest_ai_development'), copy, { recursive: true });
  const crewPy = join(copy, 'src/latest_ai_development/crew.py');
  const source = readFileSync(crewPy, 'utf8');
  writeFileSync(
    crewPy,
    source.replace('process=Process.sequential,', 'process=Process.sequential,\n            memory=True,'),
  );
  return copy;
}

describe('refusing what crewd would leave out', () => {
  it('run refuses a project with a part it does not honour, before any model call, and names the part', async () => {
    const before = model.requests.length;

    const result = await runCrewd(
      ['run', templateWithMemory(), '--inputs', '{"topic": "AI LLMs", "current_year": "2026"}'],
      { env: { OPENAI_BASE_URL: model.url } },
    );

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `warning: ${memoryLine}\n` +
        'crewd: crewd would leave out 1 part of this crew (listed above); run `crewd check` for the full report, or pass --allow-partial to run without it\n',
    );
    expect(model.requests.length).toBe(before);
  });

  it('serve says the same in readable lines and does not start', async () => {
    const database = join(mkdtempSync(join(tmpdir(), 'crewd-partial-')), 'crewd.db');

    const result = await runCrewd(['serve', templateWithMemory(), '--port', '0', '--database', database], {
      env: { OPENAI_BASE_URL: model.url },
    });

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`warning: ${memoryLine}\n`);
    expect(result.stderr).toContain('crewd: crewd would leave out 1 part of this crew');
    expect(result.stderr).not.toContain('{"level"');
  });
});

describe('crewd check', () => {
  it('reports what will run, where each model comes from, and what is not honoured, exiting non-zero', async () => {
    const result = await runCrewd(['check', templateWithMemory()]);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      [
        'Crew latest_ai_development (sequential process)',
        '',
        'Agents:',
        '  researcher ({topic} Senior Data Researcher)',
        '    model: openai/gpt-4o-mini (the MODEL variable)',
        '    tools: none',
        '  reporting_analyst ({topic} Reporting Analyst)',
        '    model: openai/gpt-4o-mini (the MODEL variable)',
        '    tools: none',
        '',
        'Tasks, in the order they run:',
        '  1. research_task: agent researcher',
        '     context: none',
        '     output: text',
        '  2. reporting_task: agent reporting_analyst',
        '     context: every earlier task',
        '     output: text',
        "     saved to: report.md (in the execution's workspace)",
        '',
        'Required inputs: topic, current_year',
        '',
        'Credentials:',
        "  - OPENAI_API_KEY: set in the project's .env (model openai/gpt-4o-mini)",
        '',
        'Not honoured (left out when run with --allow-partial):',
        `  - ${memoryLine}`,
        '',
        '1 problem: crewd does not run this crew as written.',
        '',
      ].join('\n'),
    );
    expect(result.stderr).toBe('crewd: the crew does not run as written (see the report above)\n');
  });

  it("exits 0 for crewAI's own project template: its output_file is honoured", async () => {
    const result = await runCrewd(['check', project('latest_ai_development')]);

    expect(result.code).toBe(0);
    expect(result.stdout).toContain("     saved to: report.md (in the execution's workspace)\n");
    expect(result.stdout).toContain('Nothing is left out: crewd runs this crew as written.');
  });

  it("shows each agent's built-in tool with the arguments crew.py gives it", async () => {
    const result = await runCrewd(['check', project('reading_room')], {
      env: { MODEL: 'openai/gpt-4o-mini', OPENAI_API_KEY: 'sk-test' },
    });

    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '  secretary (Board secretary)\n    model: openai/gpt-4o-mini (the MODEL variable)\n    tools: FileReadTool(file_path="notes/minutes.txt")\n',
    );
    expect(result.stdout).toContain('    tools: FileReadTool(file_path="notes/budget.txt")\n');
  });

  it('exits 0 for a crew.py project it runs as written, with the output classes it checks', async () => {
    const result = await runCrewd(['check', project('market_brief')], {
      env: { MODEL: 'openai/gpt-4.1-nano', OPENAI_API_KEY: 'sk-test' },
    });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("    model: openai/gpt-4o-mini (the agent's llm)\n");
    expect(result.stdout).toContain('    model: openai/gpt-4.1-nano (the MODEL variable)\n');
    expect(result.stdout).toContain("     output: JSON checked against Brief's schema\n");
    expect(result.stdout).toContain('Nothing is left out: crewd runs this crew as written.\n');
  });

  it('names the manager of a hierarchical crew, and counts a missing manager as a problem', async () => {
    const led = await runCrewd(['check', join(repoRoot, 'examples/hierarchical-crew')]);
    const unled = await runCrewd(['check', join(repoRoot, 'test/cli/crews/hierarchical-without-manager')], {
      env: { MODEL: 'openai/gpt-4o-mini', OPENAI_API_KEY: 'sk-test' },
    });

    expect(led.code).toBe(0);
    expect(led.stdout).toMatch(
      /^Crew hierarchical-crew \(hierarchical process\)\nManager: Crew Manager \(built from manager_llm\), delegating each task to its agent\n/,
    );
    expect(unled.code).toBe(1);
    expect(unled.stdout).toContain('A hierarchical crew needs a manager: set manager_llm or manager_agent');
  });

  it("runs each custom Python tool in the project's Python, naming its file and line", async () => {
    const result = await runCrewd(['check', userCrew(project('stock_research'))], {
      env: { MODEL: 'openai/gpt-4o-mini', OPENAI_API_KEY: 'sk-test' },
    });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // ScrapeWebsiteTool is crewai_tools', which this Python does not have: the built-in tool stands in.
    expect(result.stdout).toContain('    tools: ScrapeWebsiteTool, CalculatorTool, search_10k\n');
    expect(result.stdout).toContain(
      '  - CalculatorTool ("Make a calculation", offered to the model as make_a_calculation) at src/stock_research/tools/calculator_tool.py:9\n',
    );
    expect(result.stdout).toContain(
      '  - search_10k ("Search 10-K filings", offered to the model as search_10_k_filings) at src/stock_research/tools/sec_tools.py:5\n',
    );
    expect(result.stdout).toContain('Nothing is left out: crewd runs this crew as written.');
  });

  it('accepts a hierarchical crew whose tasks leave the agent to the manager, saying who leads them', async () => {
    const result = await runCrewd(['check', project('support_desk')], {
      env: { MODEL: 'openai/gpt-4o-mini', OPENAI_API_KEY: 'sk-test' },
    });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('  1. answer_question: the manager, with every agent as a coworker\n');
    expect(result.stdout).toContain('Nothing is left out: crewd runs this crew as written.');
  });
});

describe('custom Python tools with TypeScript stand-ins', () => {
  const env = { MODEL: 'openai/gpt-4o-mini', OPENAI_API_KEY: 'sk-test' };

  it('check runs the crew as written when tools/ holds a TypeScript tool for each Python one', async () => {
    const result = await runCrewd(['check', userCrew(project('stock_research_ts'))], { env });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('    tools: latest_figures, PriceEarningsTool\n');
    expect(result.stdout).toContain('Nothing is left out: crewd runs this crew as written.');
  });

  it('runs the TypeScript tools in place of the Python ones, their results reaching the model', async () => {
    const before = model.requests.length;

    const result = await runCrewd(
      ['run', userCrew(project('stock_research_ts')), '--inputs', '{"company": "ACME"}'],
      {
        env: { ...env, OPENAI_BASE_URL: model.url },
      },
    );

    expect(result.stderr).not.toMatch(/^crewd:/m);
    expect(result.code).toBe(0);
    const requests = model.requests.slice(before);
    expect(requests.map(toolResults)).toEqual([
      [],
      ['share price 42.00, earnings per share 3.50'],
      ['share price 42.00, earnings per share 3.50', '12.00'],
    ]);
    expect(result.stdout).toContain('Fairly priced at a P/E of 12.00.');
  });
});

describe('a hierarchical crew whose tasks name no agent', () => {
  it("runs with crew.py's manager_llm delegating the task to the coworker it picks", async () => {
    const before = model.requests.length;

    const result = await runCrewd(
      [
        'run',
        project('support_desk'),
        '--inputs',
        '{"customer": "Dana", "question": "Why was I charged twice?"}',
      ],
      { env: { MODEL: 'openai/gpt-4o-mini', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.url } },
    );

    expect(result.stderr).not.toMatch(/^crewd:/m);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Manager: Invoice 7 was charged twice; the second charge is refunded.');
    const requests = model.requests.slice(before);
    expect(requests.map((request) => request.body.model)).toEqual(['gpt-4o', 'gpt-4o-mini', 'gpt-4o']);
    expect(userText(requests[0]!)).toContain('Answer this question from Dana: Why was I charged twice?');
    expect(offeredTools(requests[0]!)).toContain('Delegate_work_to_coworker');
    expect(userText(requests[1]!)).toContain('Explain the double charge on invoice 7');
  });
});
