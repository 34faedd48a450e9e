import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { openStore } from '../../src/open-store.ts';
import { createTokenService, type NewToken } from '../../src/service/token-service.ts';
import { runCrewd } from '../cli/crewd-command.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers, requestsMentioning } from '../support/model-requests.ts';
import { apiClient, crewsDir, startCrewd, tempDatabase, testToken } from '../support/crewd.ts';
import { userCrew } from '../support/user-crew.ts';

let model: FakeOpenAIServer;
let crewd: RunningServer;
const database = tempDatabase();
let deployToken: string;

async function newToken(token: NewToken): Promise<string> {
  const store = await openStore(database);
  try {
    return (await createTokenService({ store, clock: () => new Date() }).create(token)).secret;
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: numberedAnswers() });
  const dir = userCrew(join(crewsDir, 'review-crew'));
  crewd = await startCrewd({
    crewDir: dir,
    crews: [{ name: 'briefs', dir }],
    modelUrl: model.url,
    database,
    env: { CREWD_DEPLOY: '1' },
  });
  deployToken = await newToken({ kind: 'org', deploy: true });
});

afterAll(async () => {
  await crewd.close();
  await model.close();
});

const deployBody = (files: Record<string, string>) => ({ files });

describe('crewd deploy', () => {
  it('sends a changed crew to the running server, whose new kickoffs use it', async () => {
    const changed = userCrew(join(crewsDir, 'review-crew'));
    const tasksFile = join(changed, 'tasks.yaml');
    writeFileSync(
      tasksFile,
      readFileSync(tasksFile, 'utf8').replace(
        'Write the final brief about',
        'Write the deployed brief about',
      ),
    );
    const deployed = await runCrewd([
      'deploy',
      changed,
      '--name',
      'briefs',
      '--url',
      crewd.url,
      '--token',
      deployToken,
    ]);
    expect(deployed.stderr).toBe('');
    expect(deployed.stdout).toBe('Deployed briefs as version 2; new kickoffs use it\n');

    const api = apiClient(`${crewd.url}/crews/briefs`);
    expect((await api.get('/versions')).body.served).toBe(2);
    const kickoff = await api.post('/kickoff', { inputs: { product: 'rugs', audience: 'buyers' } });
    const id = kickoff.body.kickoff_id as string;
    await api.waitForState(id, ['PAUSED']);
    await api.post('/resume', { execution_id: id, task_id: 'draft', human_feedback: 'Ok', is_approve: true });
    expect((await api.waitForState(id, ['SUCCESS', 'FAILED'])).body.state).toBe('SUCCESS');
    expect(requestsMentioning(model, 'Write the deployed brief about rugs')).toHaveLength(1);
  });

  it('takes deploys from deploy tokens only, and deploy tokens nowhere else', async () => {
    const files = { 'agents.yaml': 'a: 1\n' };
    const asOrg = await apiClient(`${crewd.url}/crews/briefs`, testToken).post('/deploy', deployBody(files));
    expect(asOrg.status).toBe(401);
    const user = await newToken({ kind: 'user', userId: 'frank' });
    expect(
      (await apiClient(`${crewd.url}/crews/briefs`, user).post('/deploy', deployBody(files))).status,
    ).toBe(401);
    const deployer = apiClient(`${crewd.url}/crews/briefs`, deployToken);
    for (const answer of [
      await deployer.get('/inputs'),
      await deployer.get('/executions'),
      await deployer.get('/versions'),
    ]) {
      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe('UNAUTHORIZED');
    }
  });

  it('refuses files that do not load, saying why without paths of the server, and keeps serving what it served', async () => {
    const deployer = apiClient(`${crewd.url}/crews/briefs`, deployToken);
    const broken = await deployer.post(
      '/deploy',
      deployBody({ 'agents.yaml': 'editor:\n  role: Editor\n', 'tasks.yaml': 'draft: [not, a, task\n' }),
    );
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe('VALIDATION_ERROR');
    expect(broken.body.message).toMatch(/tasks\.yaml/);
    expect(JSON.stringify(broken.body)).not.toMatch(/\/tmp|crew-versions|\.crewd/);
    const escaping = await deployer.post('/deploy', deployBody({ '../agents.yaml': 'x' }));
    expect(escaping.status).toBe(400);
    expect((await apiClient(`${crewd.url}/crews/briefs`).get('/versions')).body.served).toBe(2);
  });

  it('describes the version served: a deployed input shows in the API description at once', async () => {
    const kickoffInputs = async (path: string): Promise<unknown> => {
      const document = (await apiClient(crewd.url, null).get(path)).body;
      return document.paths['/kickoff'].post.requestBody.content['application/json'].schema.properties.inputs
        .required;
    };
    expect(await kickoffInputs('/crews/briefs/openapi.json')).toEqual(['product', 'audience']);
    expect(await kickoffInputs('/openapi.json')).toEqual(['product', 'audience']);

    const seasonal = userCrew(join(crewsDir, 'review-crew'));
    const tasksFile = join(seasonal, 'tasks.yaml');
    writeFileSync(
      tasksFile,
      readFileSync(tasksFile, 'utf8').replace(
        'Write the final brief about {product}',
        'Write the final brief about {product} for {season}',
      ),
    );
    const deployed = await runCrewd([
      'deploy',
      seasonal,
      '--name',
      'briefs',
      '--url',
      crewd.url,
      '--token',
      deployToken,
    ]);
    expect(deployed.stdout).toMatch(/^Deployed briefs as version \d+; new kickoffs use it\n$/);

    expect(await kickoffInputs('/crews/briefs/openapi.json')).toEqual(['product', 'audience', 'season']);
    expect(await kickoffInputs('/openapi.json')).toEqual(['product', 'audience', 'season']);
  });

  it('is off unless the operator enables it', async () => {
    const dir = userCrew(join(crewsDir, 'plain-crew'));
    const closed = await startCrewd({ crewDir: dir, modelUrl: model.url, database });
    try {
      const answer = await apiClient(`${closed.url}/crews/plain-crew`, deployToken).post(
        '/deploy',
        deployBody({ 'agents.yaml': 'a: 1\n' }),
      );
      expect(answer.status).toBe(404);
    } finally {
      await closed.close();
    }
  });
});
