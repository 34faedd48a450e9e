import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCrew } from '../../src/crew/load-crew.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { systemText, toolResultText, userText } from '../support/model-requests.ts';
import { userCrew } from '../support/user-crew.ts';
import { repoRoot, runCrewd } from './crewd-command.ts';

/** A copy, outside the repository, of one of the crewAI projects under test/fixtures/crewai-projects. */
const project = (name: string): string => userCrew(join(repoRoot, 'test/fixtures/crewai-projects', name));

async function load(dir: string, crew?: string) {
  const warnings: string[] = [];
  const dropped: string[] = [];
  const definition = await loadCrew(dir, {
    warn: (message) => warnings.push(message),
    drop: (message) => dropped.push(message),
    ...(crew === undefined ? {} : { crew }),
  });
  return { crew: definition, warnings, dropped };
}

/** The 1-based line of the first line of `file` that contains `text`. */
function lineOf(file: string, text: string): number {
  const index = readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((line) => line.includes(text));
  if (index === -1) throw new Error(`${text} is not in ${file}`);
  return index + 1;
}

const leadScorePy = 'src/lead_score_flow/crews/lead_score_crew/lead_score_crew.py';

describe("a Flow's crew.py with settings, model classes and output classes from across its package", () => {
  it('reads output classes imported absolutely and relatively, from types.py and a models package', async () => {
    const { crew } = await load(project('lead_score_flow'));

    const [evaluate, note] = crew.tasks;
    expect(evaluate?.outputJson).toMatchObject({
      title: 'CandidateScore',
      required: ['id', 'score', 'reason'],
    });
    expect(note?.outputJson).toMatchObject({
      title: 'ScoreNote',
      properties: { summary: { type: 'string' }, follow_up: { type: 'boolean' } },
    });
  });

  it("reads langchain's model classes as the provider they wrap, with their settings", async () => {
    const { crew } = await load(project('lead_score_flow'));

    expect(crew.agents.get('hr_evaluation_agent')).toMatchObject({
      llm: { model: 'ollama/llama3', baseUrl: 'http://127.0.0.1:11434' },
      functionCallingLlm: { model: 'openai/gpt-4o-mini', temperature: 0 },
    });
  });

  it('takes memory=False and the like as no request, and cites crew.py lines for what it does not honour', async () => {
    const dir = project('lead_score_flow');
    const file = join(dir, leadScorePy);

    const { warnings, dropped } = await load(dir);

    expect(dropped).toEqual([
      `${leadScorePy}:${lineOf(file, 'knowledge_sources=')} (hr_evaluation_agent.knowledge_sources): crewd does not do knowledge_sources yet: the agent is given no knowledge sources`,
      `${leadScorePy}:${lineOf(file, 'apps=')} (note_taker.apps): crewd does not do apps yet: the agent is given no apps' tools`,
    ]);
    // crewAI's Task has no verbose: it is ignored there too, and the warning points at crew.py, not tasks.yaml.
    expect(warnings).toEqual([
      `${leadScorePy}:${lineOf(file, 'verbose=True,')} (evaluate_candidate_task.verbose): unknown key, ignored`,
    ]);
  });

  it('cites the crew.py line of a Crew(...) setting it does not honour', async () => {
    const dir = project('lead_score_flow');
    const file = join(dir, leadScorePy);
    writeFileSync(file, readFileSync(file, 'utf8').replace('planning=False,', 'planning=True,'));

    const { dropped } = await load(dir);

    expect(dropped).toContain(
      `${leadScorePy}:${lineOf(file, 'planning=True,')} (planning): crewd does not do planning yet: the crew runs without a planning step`,
    );
  });

  it('refuses a model class it does not know by name, with file and line, instead of reading an OpenAI model', async () => {
    const dir = project('lead_score_flow');
    const file = join(dir, leadScorePy);
    writeFileSync(
      file,
      readFileSync(file, 'utf8')
        .replace(
          'from langchain_openai import ChatOpenAI',
          'from langchain_huggingface import HuggingFaceEndpoint',
        )
        .replace(
          'ChatOpenAI(model="gpt-4o-mini", temperature=0)',
          'HuggingFaceEndpoint(model="gpt-4o-mini")',
        ),
    );

    const { crew, dropped } = await load(dir);

    expect(crew.agents.get('hr_evaluation_agent')?.functionCallingLlm).toBeUndefined();
    expect(dropped).toContain(
      `${leadScorePy}:${lineOf(file, 'HuggingFaceEndpoint(')} (hr_evaluation_agent.function_calling_llm): HuggingFaceEndpoint is a model class crewd does not know; write LLM(model="provider/model") instead`,
    );
  });
});

describe('a crew.py that holds several crews', () => {
  it('reads the one main.py runs, as `crewai run` does, and says which it read', async () => {
    const { crew, warnings } = await load(project('newsroom'));

    expect(crew.process).toBe('hierarchical');
    expect(crew.tasks.map((task) => task.name)).toEqual(['edit_task']);
    expect(warnings[0]).toBe(
      'src/newsroom/crew.py holds the crews DraftingCrew, EditorialCrew; this is EditorialCrew, the one main.py runs (choose another with --crew <ClassName>)',
    );
  });

  it('honours a manager Agent(...) built in the @crew method, leaving it out of the coworkers', async () => {
    const { crew } = await load(project('newsroom'));

    expect(crew.managerAgent).toBe('chief_editor');
    expect(crew.agents.get('chief_editor')).toMatchObject({ role: 'Chief Editor', allowDelegation: true });
    // The other class's drafter is not one of this crew's agents, as in crewAI.
    expect([...crew.agents.keys()].sort()).toEqual(['chief_editor', 'copy_editor', 'fact_checker']);
  });

  it('reads the class --crew names', async () => {
    const { crew } = await load(project('newsroom'), 'DraftingCrew');

    expect(crew.process).toBe('sequential');
    expect([...crew.agents.keys()]).toEqual(['drafter']);
    expect(crew.tasks.map((task) => [task.name, task.agent])).toEqual([['draft_task', 'drafter']]);
  });

  it('refuses to guess without main.py, listing the crews', async () => {
    const dir = project('newsroom');
    rmSync(join(dir, 'src/newsroom/main.py'));

    await expect(load(dir)).rejects.toThrow(
      `src/newsroom/crew.py:line ${lineOf(join(dir, 'src/newsroom/crew.py'), 'class EditorialCrew')}: holds several crews (DraftingCrew, EditorialCrew); choose one with --crew <ClassName>`,
    );
  });

  it("finds the class --crew names among a Flow's crews", async () => {
    const { crew } = await load(project('poem_flow'), 'CriticCrew');

    expect(crew.name).toBe('CriticCrew');
    expect(crew.tasks.map((task) => task.name)).toEqual(['critique_poem']);
  });

  it('refuses --crew for a script crew.py, which defines no crew class', async () => {
    await expect(load(project('tide_notes'), 'Harbour')).rejects.toThrow(
      'src/tide_notes/crew.py: holds no crew named "Harbour"; it defines no crew class',
    );
  });

  it('names the crews there are when --crew names none of them', async () => {
    await expect(load(project('newsroom'), 'SportsDesk')).rejects.toThrow(
      'src/newsroom/crew.py: holds no crew named "SportsDesk"; its crews are DraftingCrew, EditorialCrew',
    );
  });
});

describe('a crew.py written as a plain script', () => {
  it('reads the agents, tasks and crew it builds at module level, with no config/ folder', async () => {
    const { crew, warnings, dropped } = await load(project('tide_notes'));

    expect(warnings).toEqual([]);
    expect(dropped).toEqual([]);
    expect(crew.agents.get('researcher')).toMatchObject({
      role: 'Tide Researcher',
      llm: { model: 'openai/gpt-4o-mini', temperature: 0.2 },
    });
    expect(crew.agents.get('writer')?.llm).toEqual({ model: 'openai/gpt-4o' });
    expect(crew.tasks.map((task) => [task.name, task.agent, task.context, task.outputFile])).toEqual([
      ['research', 'researcher', undefined, undefined],
      ['explain', 'writer', ['research'], 'tides.md'],
    ]);
    expect(crew.requiredInputs).toEqual(['place']);
  });
});

describe('a crew.py that is not valid Python', () => {
  it("is an error naming its file and line, not a crew without crew.py's settings", async () => {
    await expect(load(project('unrendered_template'))).rejects.toThrow(
      'src/unrendered_template/crew.py:line 6: is not valid Python (`class {{crew_name}}():`); crewd cannot read the crew from it',
    );
  });
});

describe('crewd with several crews in one crew.py', () => {
  let model: FakeOpenAIServer;

  beforeAll(async () => {
    model = await startFakeOpenAI({
      respond: (request) => {
        const result = toolResultText(request);
        if (systemText(request).startsWith('You are Chief Editor')) {
          if (result !== undefined) return { content: `Ready to print: ${result}` };
          return {
            toolCalls: [
              {
                name: 'Delegate_work_to_coworker',
                arguments: { task: 'Check the dates', context: 'Bridge story', coworker: 'Fact Checker' },
              },
            ],
          };
        }
        if (systemText(request).startsWith('You are Fact Checker')) return { content: 'Opened in 1932.' };
        return { content: `Draft: ${userText(request).slice(0, 20)}` };
      },
    });
  });

  afterAll(async () => {
    await model.close();
  });

  const env = (): Record<string, string> => ({
    MODEL: 'openai/gpt-4o-mini',
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: model.url,
  });

  it('check lists the crews and names the one it reports on', async () => {
    const result = await runCrewd(['check', project('newsroom')], { env: env() });

    expect(result.stdout).toMatch(
      /^Crew newsroom \(hierarchical process\)\nManager: Chief Editor \(manager_agent\)/,
    );
    expect(result.stdout).toContain(
      '  - src/newsroom/crew.py holds the crews DraftingCrew, EditorialCrew; this is EditorialCrew, the one main.py runs (choose another with --crew <ClassName>)\n',
    );
  });

  it('run --crew <ClassName> runs that class', async () => {
    const before = model.requests.length;

    const result = await runCrewd(
      ['run', project('newsroom'), '--crew', 'DraftingCrew', '--inputs', '{"story": "the harbour bridge"}'],
      { env: env() },
    );

    expect(result.stderr).not.toMatch(/^crewd:/m);
    expect(result.code).toBe(0);
    const requests = model.requests.slice(before);
    expect(requests.map((request) => systemText(request).split('.')[0])).toEqual(['You are Staff Writer']);
  });

  it('runs the chief editor built in the @crew method as the manager of the class main.py runs', async () => {
    const before = model.requests.length;

    const result = await runCrewd(
      ['run', project('newsroom'), '--inputs', '{"story": "the harbour bridge"}'],
      {
        env: env(),
      },
    );

    expect(result.stderr).not.toMatch(/^crewd:/m);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Ready to print: Opened in 1932.');
    const requests = model.requests.slice(before);
    expect(requests.map((request) => systemText(request).split('.')[0])).toEqual([
      'You are Chief Editor',
      'You are Fact Checker',
      'You are Chief Editor',
    ]);
  });

  it('serve refuses several crews it cannot choose among, listing them', async () => {
    const dir = project('newsroom');
    rmSync(join(dir, 'src/newsroom/main.py'));

    const result = await runCrewd(['serve', dir, '--port', '0'], { env: env() });

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'holds several crews (DraftingCrew, EditorialCrew); choose one with --crew <ClassName>',
    );
  });
});
