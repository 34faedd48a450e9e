import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrewsApi, type ApiHarness } from './support/api-harness.ts';
import { exampleCrew } from './support/example-crew.ts';
import { InMemoryExecutionService } from './support/in-memory-execution-service.ts';

let api: ApiHarness;
beforeAll(async () => {
  api = await startCrewsApi([
    { kind: 'crew', name: 'research', service: new InMemoryExecutionService() },
    {
      kind: 'crew',
      name: 'support',
      service: new InMemoryExecutionService({
        ...exampleCrew,
        name: 'support-crew',
        requiredInputs: ['question'],
      }),
    },
  ]);
});
afterAll(() => api.close());

describe('the A2A routes of a served crew', () => {
  it("build the agent card's URLs from the base URL the crew is served under", async () => {
    for (const [name, crew, inputs] of [
      ['research', 'research-crew', 'topic, current_year'],
      ['support', 'support-crew', 'question'],
    ] as const) {
      const response = await api.server.inject({
        method: 'GET',
        url: `/crews/${name}/.well-known/agent-card.json`,
        headers: { host: 'crews.example.com:8443' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        name: crew,
        url: `http://crews.example.com:8443/crews/${name}/a2a`,
      });
      expect(response.json().skills[0].description).toContain(inputs);
    }
  });
});
