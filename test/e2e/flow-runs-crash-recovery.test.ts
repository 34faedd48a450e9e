import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAIServer, type FakeReply } from '../support/fake-openai-server.ts';
import { apiClient, spawnCrewd, tempDatabase, type CrewdProcess, killHard } from '../support/crewd.ts';
import { createTestDatabase } from '../support/postgres-database.ts';
import { until } from '../support/until.ts';
import { userCrew } from '../support/user-crew.ts';

const flows = join(import.meta.dirname, 'flows');
let model: FakeOpenAIServer;
/** Model calls whose prompt this picks are held (never answered): the process is killed while they wait. */
let holding: (prompt: string) => boolean = () => false;
const running: CrewdProcess[] = [];

/** Requests whose messages mention `words`. */
const callsFor = (words: string): number =>
  model.requests.filter((request) => JSON.stringify(request.body?.messages ?? '').includes(words)).length;

const hasToolResult = (prompt: string): boolean => prompt.includes('"role":"tool"');

function answer(request: { body: { messages?: unknown } }): FakeReply {
  const prompt = JSON.stringify(request.body.messages ?? '');
  if (holding(prompt)) return { heldUntil: new Promise(() => {}) };
  // The left branch's last task records a visit with its tool before it answers.
  if (prompt.includes('Left third step') && !hasToolResult(prompt))
    return { toolCalls: [{ name: 'record_visit', arguments: { city: 'Lisbon' } }] };
  const branch = /(Left|Right) (first|second|third) step/.exec(prompt);
  if (branch !== null) return { content: `${branch[1]} ${branch[2]} done.` };
  const plan = /Plan step: plan a day in (\w+)/.exec(prompt);
  if (plan !== null) return { content: `A plan for ${plan[1]}.` };
  const diary = /Diary step: write the diary of (\w+)/.exec(prompt);
  if (diary !== null) return { content: `Diary of ${diary[1]}.` };
  return { content: 'Done.' };
}

async function serve(dir: string, database: string, env: Record<string, string> = {}): Promise<CrewdProcess> {
  // The lease is far longer than the test: only the killed process's lost liveness lock explains the takeover.
  const crewd = await spawnCrewd({
    crewDir: dir,
    database,
    modelUrl: model.url,
    env: { CREWD_EXECUTION_LEASE_MS: '300000', ...env },
  });
  running.push(crewd);
  return crewd;
}

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: answer });
});

afterAll(async () => {
  for (const crewd of running) crewd.child.kill('SIGKILL');
  await model.close();
});

const sqlite = () => Promise.resolve({ url: tempDatabase(), drop: () => Promise.resolve() });
const databases: readonly [string, () => Promise<{ url: string; drop: () => Promise<void> }>][] = [
  ['SQLite', sqlite],
  ['PostgreSQL', createTestDatabase],
];

describe.each(databases)(
  'a flow whose branches run side by side, killed with SIGKILL on %s',
  (_name, createDatabase) => {
    it('goes on with each branch from its own last completed step', async () => {
      const dir = userCrew(join(flows, 'side-by-side-flow'));
      const visits = join(mkdtempSync(join(tmpdir(), 'crewd-visits-')), 'visits.log');
      const created = await createDatabase();
      const steps = ['first', 'second', 'third'].flatMap((step) => [
        `Left ${step} step`,
        `Right ${step} step`,
      ]);
      const before = Object.fromEntries(steps.map((step) => [step, callsFor(step)]));
      const first = await serve(dir, created.url, { VISIT_LOG: visits });
      // Both branches are cut short in their last task: the left one after its tool call, the right one at its start.
      holding = (prompt) =>
        (prompt.includes('Left third step') && hasToolResult(prompt)) || prompt.includes('Right third step');
      const kickoff = await apiClient(first.url).post('/kickoff', { inputs: {} });
      expect(kickoff.status).toBe(200);
      const id = kickoff.body.kickoff_id as string;
      await until(
        () =>
          callsFor('Left third step') === before['Left third step']! + 2 &&
          callsFor('Right third step') === before['Right third step']! + 1,
      );
      await killHard(first);

      holding = () => false;
      const second = await serve(dir, created.url, { VISIT_LOG: visits });
      const done = await apiClient(second.url).waitForState(id, ['SUCCESS', 'FAILED']);
      expect(done.body.state).toBe('SUCCESS');
      expect(done.body.result).toBe('Left third done. (4 calls) | Right third done. (3 calls)');
      expect(done.body.flow_methods[0]).toBe('begin');
      expect([...done.body.flow_methods].sort()).toEqual(['begin', 'joined', 'left', 'right']);
      // No completed model call of either branch is asked again; the calls cut short by the kill are.
      for (const step of ['Left first step', 'Left second step', 'Right first step', 'Right second step'])
        expect(callsFor(step), step).toBe(before[step]! + 1);
      expect(callsFor('Left third step')).toBe(before['Left third step']! + 3);
      expect(callsFor('Right third step')).toBe(before['Right third step']! + 2);
      // The tool call completed before the kill is not made again.
      expect(readFileSync(visits, 'utf8')).toBe(`${id} Lisbon\n`);
      await killHard(second);
      await created.drop();
    });
  },
);

describe('an each action killed with SIGKILL on SQLite', () => {
  it('goes on with the item in flight from its last completed step, and runs no completed item again', async () => {
    const dir = userCrew(join(flows, 'each-crew-flow'));
    const { url } = await sqlite();
    const cities = ['Lisbon', 'Oslo', 'Rome'];
    const count = () =>
      Object.fromEntries(
        cities.flatMap((city) => [
          [`plan ${city}`, callsFor(`Plan step: plan a day in ${city}`)],
          [`diary ${city}`, callsFor(`Diary step: write the diary of ${city}`)],
        ]),
      );
    const before = count();
    const first = await serve(dir, url);
    // Killed while the second item's crew waits on its second task: its first task completed.
    holding = (prompt) => prompt.includes('Diary step: write the diary of Oslo');
    const kickoff = await apiClient(first.url).post('/kickoff', { inputs: {} });
    expect(kickoff.status).toBe(200);
    const id = kickoff.body.kickoff_id as string;
    await until(() => count()['diary Oslo'] === before['diary Oslo']! + 1);
    await killHard(first);

    holding = () => false;
    const second = await serve(dir, url);
    const done = await apiClient(second.url).waitForState(id, ['SUCCESS', 'FAILED']);
    expect(done.body.state).toBe('SUCCESS');
    expect(done.body.result).toBe('Diary of Lisbon. Diary of Oslo. Diary of Rome.');
    expect(done.body.flow_methods).toEqual(['tour', 'summary']);
    const after = count();
    for (const [call, made] of Object.entries(after))
      expect(made, call).toBe(before[call]! + (call === 'diary Oslo' ? 2 : 1));
    await killHard(second);
  });
});
