import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { userText } from '../support/model-requests.ts';
import { repoRoot, runCrewd } from './crewd-command.ts';

const project = (name: string): string => join(repoRoot, 'test/fixtures/crewai-projects', name);

let model: FakeOpenAIServer;

beforeAll(async () => {
  model = await startFakeOpenAI({
    respond: (request) => {
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
  it("runs crewAI's project template from its root, with the model and key from the project's .env", async () => {
    const before = model.requests.length;

    const result = await runCrewd(
      ['run', project('latest_ai_development'), '--inputs', '{"topic": "AI LLMs", "current_year": "2026"}'],
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
  });

  it('lets a variable of the real environment win over the same one in .env', async () => {
    const before = model.requests.length;

    const result = await runCrewd(
      ['run', project('latest_ai_development'), '--inputs', '{"topic": "AI LLMs", "current_year": "2026"}'],
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
