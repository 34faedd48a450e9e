import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiClient, crewsDir } from '../support/crewd.ts';
import { startFakeOpenAI } from '../support/fake-openai-server.ts';
import { numberedAnswers, requestsMentioning } from '../support/model-requests.ts';
import { userCrew } from '../support/user-crew.ts';
import {
  exampleCrew,
  exampleInputs,
  finished,
  runCrewd,
  spawnCrewd,
  tempDir,
  waitForOutput,
} from './crewd-command.ts';

describe('crewd serve with several crews', () => {
  it('serves each under /crews/<name>; the client works against a base URL, and list sees every crew', async () => {
    const database = join(tempDir(), 'crewd.db');
    const first = userCrew(exampleCrew);
    const second = userCrew(exampleCrew);
    const server = spawnCrewd([
      'serve',
      first,
      `second-look=${second}`,
      '--port',
      '0',
      '--database',
      database,
    ]);
    const exit = finished(server);
    try {
      const [, url, names, token] = await waitForOutput(
        server,
        /serving 2 crews at (http:\/\/127\.0\.0\.1:\d+):\n((?: {2}[^\n]*\n){2})[^\n]*\n {2}(\S+)\n/,
      );
      expect(names).toBe(
        `  research-crew: ${url}/crews/research-crew (${first})\n  second-look: ${url}/crews/second-look (${second})\n`,
      );
      const atBase = { env: { CREWD_URL: `${url}/crews/second-look`, CREWD_TOKEN: token! } };
      const kickoff = await runCrewd(['kickoff', '--inputs', exampleInputs, '--wait', '--json'], atBase);
      expect(kickoff.code).toBe(0);
      const paused = JSON.parse(kickoff.stdout);
      expect(paused.state).toBe('PAUSED');

      const atRoot = { env: { CREWD_URL: url!, CREWD_TOKEN: token! } };
      const pending = await runCrewd(['pending', '--json'], atRoot);
      expect(JSON.parse(pending.stdout).items.map((item: { kickoff_id: string }) => item.kickoff_id)).toEqual(
        [paused.kickoff_id],
      );
      const other = { env: { CREWD_URL: `${url}/crews/research-crew`, CREWD_TOKEN: token! } };
      const elsewhere = await runCrewd(['status', paused.kickoff_id], other);
      expect(elsewhere.code).toBe(1);
      expect(elsewhere.stderr).toMatch(/\(HTTP 404\)\n$/);
    } finally {
      server.kill('SIGTERM');
      await exit;
    }
  });

  it("gives each crew's models and tools its own .env, never another crew's", async () => {
    const [firstModel, secondModel] = [
      await startFakeOpenAI({ respond: numberedAnswers() }),
      await startFakeOpenAI({ respond: numberedAnswers() }),
    ];
    const first = userCrew(join(crewsDir, 'plain-crew'));
    writeFileSync(join(first, '.env'), `OPENAI_BASE_URL=${firstModel.url}\nOPENAI_API_KEY=sk-first\n`);
    // The second names no model of its own: its .env's MODEL is its agents' default.
    const second = userCrew(join(crewsDir, 'plain-crew'));
    writeFileSync(join(second, 'crew.yaml'), 'name: plain-crew\n');
    writeFileSync(
      join(second, '.env'),
      `OPENAI_BASE_URL=${secondModel.url}\nOPENAI_API_KEY=sk-second\nMODEL=openai/second-model\n`,
    );
    const database = join(tempDir(), 'crewd.db');
    const server = spawnCrewd([
      'serve',
      `notes=${first}`,
      `memos=${second}`,
      '--port',
      '0',
      '--database',
      database,
    ]);
    const exit = finished(server);
    try {
      const [, url, token] = await waitForOutput(
        server,
        /serving 2 crews at (http:\/\/127\.0\.0\.1:\d+):\n(?: {2}[^\n]*\n){2}[^\n]*\n {2}(\S+)\n/,
      );
      for (const [crew, topic] of [
        ['notes', 'kites'],
        ['memos', 'tides'],
      ] as const) {
        const api = apiClient(`${url}/crews/${crew}`, token);
        const kickoff = await api.post('/kickoff', { inputs: { topic } });
        expect(
          (await api.waitForState(kickoff.body.kickoff_id as string, ['SUCCESS', 'FAILED'])).body.state,
        ).toBe('SUCCESS');
      }

      expect(requestsMentioning(firstModel, 'kites').length).toBeGreaterThan(0);
      expect(requestsMentioning(firstModel, 'tides')).toHaveLength(0);
      expect(firstModel.requests.map((request) => request.headers.authorization)).toContain(
        'Bearer sk-first',
      );
      expect(new Set(firstModel.requests.map((request) => request.body.model))).toEqual(
        new Set(['test-model']),
      );
      expect(requestsMentioning(secondModel, 'tides').length).toBeGreaterThan(0);
      expect(requestsMentioning(secondModel, 'kites')).toHaveLength(0);
      expect(new Set(secondModel.requests.map((request) => request.headers.authorization))).toEqual(
        new Set(['Bearer sk-second']),
      );
      expect(new Set(secondModel.requests.map((request) => request.body.model))).toEqual(
        new Set(['second-model']),
      );
    } finally {
      server.kill('SIGTERM');
      await exit;
      await firstModel.close();
      await secondModel.close();
    }
  });

  it('refuses two crews of one name, and a flow that does not load, with one line each', async () => {
    const database = join(tempDir(), 'crewd.db');
    const twice = await runCrewd(['serve', `a=${exampleCrew}`, `a=${exampleCrew}`, '--database', database]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toBe("crewd: Two crews are named 'a': name one yourself, as <name>=<path>\n");

    const flow = join(tempDir(), 'greeting.flow.yaml');
    writeFileSync(
      flow,
      'schema: crewai.flow/v1\nname: greeting\nmethods:\n  loop: {listen: loop, do: {call: expression, expr: "1"}}\n',
    );
    const refused = await runCrewd(['serve', exampleCrew, flow, '--database', database]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^crewd: greeting\.flow\.yaml.*\n$/);
    expect(refused.stderr.split('\n')).toHaveLength(2);

    const badName = await runCrewd(['serve', `Big Name=${exampleCrew}`, '--database', database]);
    expect(badName.code).toBe(1);
    expect(badName.stderr).toMatch(/^crewd: 'Big Name' is not a crew name/);
  });
});
