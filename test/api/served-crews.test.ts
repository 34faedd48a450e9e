import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServedCrew } from '../../src/api/routes/served-crews-route.ts';
import type { CrewDeployer, CrewVersionListing } from '../../src/service/crew-version-source.ts';
import type { Caller } from '../../src/service/execution-service.ts';
import { orgCaller, orgToken, readJson, startCrewsApi } from './support/api-harness.ts';
import type { ApiHarness } from './support/api-harness.ts';
import { exampleCrew, makeExecution } from './support/example-crew.ts';
import { InMemoryExecutionService } from './support/in-memory-execution-service.ts';

const deployToken = 'deploy-secret-0123456789';
const deployCaller: Caller = { tokenId: 'deploy-token', kind: 'org', userId: null, deploy: true };

const research = new InMemoryExecutionService();
const support = new InMemoryExecutionService({
  ...exampleCrew,
  name: 'support-crew',
  requiredInputs: ['question'],
});
const versions: CrewVersionListing = {
  list: () => Promise.resolve({ served: 1, versions: [] }),
};
const deployed: Record<string, string>[] = [];
const deployer: CrewDeployer = {
  deploy: (files) => {
    deployed.push({ ...files });
    return Promise.resolve({ version: 2, created: true });
  },
};
/** Two crews; only `research` has versions and takes deploys. */
const crews: ServedCrew[] = [
  { kind: 'crew', name: 'research', service: research, versions, deployer },
  { kind: 'crew', name: 'support', service: support },
];

/** Every token the server was asked about, in order. */
const authenticated: string[] = [];
let api: ApiHarness;
beforeAll(async () => {
  api = await startCrewsApi(crews, {
    authenticate: (secret) => {
      authenticated.push(secret);
      const callers: Record<string, Caller> = { [orgToken]: orgCaller, [deployToken]: deployCaller };
      return Promise.resolve(callers[secret] ?? null);
    },
    outputFiles: { open: () => Promise.resolve(undefined) },
  });
});
afterAll(() => api.close());

const routeNotFound = { error: 'Not Found', message: 'Route not found', code: 'NOT_FOUND' };

/** One request of each route family under a base URL. */
const everyFamily: readonly (readonly [method: string, path: string])[] = [
  ['GET', ''],
  ['GET', '/'],
  ['GET', '/inputs'],
  ['POST', '/kickoff'],
  ['GET', '/crew'],
  ['GET', '/versions'],
  ['GET', '/status/some-id'],
  ['GET', '/some-id/status'],
  ['POST', '/resume'],
  ['POST', '/cancel/some-id'],
  ['POST', '/stop/some-id'],
  ['GET', '/executions'],
  ['GET', '/executions/some-id'],
  ['GET', '/executions/some-id/deliveries'],
  ['GET', '/executions/some-id/events'],
  ['GET', '/executions/some-id/files/report.md'],
  ['GET', '/schedules'],
  ['POST', '/schedules'],
  ['POST', '/triggers/new-order'],
  ['GET', '/.well-known/agent-card.json'],
  ['POST', '/a2a'],
  ['POST', '/mcp'],
  ['GET', '/mcp'],
  ['POST', '/deploy'],
  ['GET', '/openapi.json'],
];

describe('a server of several crews', () => {
  it('answers 404 in the error shape for a crew it does not serve, on every route, with no token checked', async () => {
    authenticated.length = 0;
    for (const [method, path] of everyFamily) {
      for (const token of [orgToken, null]) {
        const response = await api.request(`/crews/unknown${path}`, {
          method,
          token,
          ...(method === 'POST' ? { body: {} } : {}),
        });
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(await readJson(response), `${method} ${path}`).toEqual(routeNotFound);
      }
    }
    expect(authenticated).toEqual([]);
    // Names are matched exactly, as paths are.
    expect((await api.request('/crews/Research/inputs')).status).toBe(404);
  });

  it('answers each crew under its base URL from its own service', async () => {
    expect(await readJson(await api.request('/crews/research/inputs'))).toEqual({
      inputs: ['topic', 'current_year'],
    });
    expect(await readJson(await api.request('/crews/support/inputs'))).toEqual({ inputs: ['question'] });

    const kickoff = await api.request('/crews/support/kickoff', { body: { inputs: { question: 'why?' } } });
    expect(kickoff.status).toBe(200);
    expect(support.kickoffs.map((request) => request.inputs)).toEqual([{ question: 'why?' }]);
    expect(research.kickoffs).toEqual([]);

    support.put(makeExecution({ id: 'support-1', state: 'SUCCESS' }));
    expect((await api.request('/crews/support/status/support-1')).status).toBe(200);
    expect((await api.request('/crews/research/status/support-1')).status).toBe(404);
    expect((await readJson(await api.request('/crews/support/crew'))).name).toBe('support-crew');
  });

  it("counts each crew's requests under its own base URL in metrics, and unknown crews as unmatched", async () => {
    await api.request('/crews/support/inputs');
    await api.request('/crews/nobody/inputs');
    const text = await (await api.request('/metrics')).text();
    expect(text).toMatch(
      /crewd_http_requests_total\{method="GET",route="\/crews\/support\/inputs",status="200"\} \d/,
    );
    expect(text).not.toContain(':crew');
    expect(text).not.toContain('nobody');
    expect(text).toMatch(/crewd_http_requests_total\{method="GET",route="unmatched",status="404"\} \d/);
  });

  it('answers the routes of a part only for crews that have it, and describes them only for those', async () => {
    const listed = await api.request('/crews/research/versions');
    expect(listed.status).toBe(200);
    expect(await readJson(listed)).toEqual({ served: 1, versions: [] });
    const deploy = await api.request('/crews/research/deploy', {
      token: deployToken,
      body: { files: { 'crew.yaml': 'name: research' } },
    });
    expect(deploy.status).toBe(200);
    expect(deployed).toEqual([{ 'crew.yaml': 'name: research' }]);

    authenticated.length = 0;
    for (const [path, token] of [
      ['/crews/support/versions', orgToken],
      ['/crews/support/deploy', deployToken],
    ] as const) {
      const response = await api.request(path, {
        token,
        ...(path.endsWith('deploy') ? { body: { files: { 'crew.yaml': 'x' } } } : {}),
      });
      expect(response.status, path).toBe(404);
      expect(await readJson(response), path).toEqual(routeNotFound);
    }
    expect(authenticated).toEqual([]);
    expect(deployed).toHaveLength(1);

    const researchDocument = await readJson(
      await api.request('/crews/research/openapi.json', { token: null }),
    );
    const supportDocument = await readJson(await api.request('/crews/support/openapi.json', { token: null }));
    expect(Object.keys(researchDocument.paths)).toEqual(expect.arrayContaining(['/versions', '/deploy']));
    expect(Object.keys(supportDocument.paths)).not.toContain('/versions');
    expect(Object.keys(supportDocument.paths)).not.toContain('/deploy');
    expect(supportDocument.servers).toEqual([{ url: '/crews/support' }]);
    expect(
      supportDocument.paths['/kickoff'].post.requestBody.content['application/json'].schema.properties.inputs
        .required,
    ).toEqual(['question']);
    // The crew's base URL fixes the crew: its document has no such parameter.
    const parameterNames = Object.values(supportDocument.paths as Record<string, Record<string, unknown>>)
      .flatMap((operations) => Object.values(operations))
      .flatMap((operation) => (operation as { parameters?: { name: string }[] }).parameters ?? [])
      .map((parameter) => parameter.name);
    expect(parameterNames).toContain('kickoffId');
    expect(parameterNames).not.toContain('crew');
  });
});
