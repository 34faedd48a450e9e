import Fastify from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, describe, expect, it } from 'vitest';
import { registerA2aRoutes } from '../../src/api/routes/a2a-routes.ts';
import { Metrics } from '../../src/observability/metrics.ts';
import { InMemoryExecutionService } from './support/in-memory-execution-service.ts';

const app = Fastify().withTypeProvider<ZodTypeProvider>();
afterAll(() => app.close());

describe('the A2A routes under a prefix', () => {
  it("build the agent card's URLs from the base URL they are served under", async () => {
    const service = new InMemoryExecutionService();
    const context = {
      serviceOf: () => service,
      basePathOf: () => '/crews/research',
      metrics: new Metrics(),
      clock: () => new Date(),
      authenticate: () => Promise.resolve(null),
      tokenRecheckMs: 250,
    };
    await app.register(
      (scope, _options, done) => {
        registerA2aRoutes(scope, context);
        done();
      },
      { prefix: '/crews/research' },
    );
    const response = await app.inject({
      method: 'GET',
      url: '/crews/research/.well-known/agent-card.json',
      headers: { host: 'crews.example.com:8443' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      name: 'research-crew',
      url: 'http://crews.example.com:8443/crews/research/a2a',
    });
    expect(response.json().skills[0].description).toContain('topic, current_year');
  });
});
