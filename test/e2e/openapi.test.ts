import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers } from '../support/model-requests.ts';
import { apiClient, crewsDir, startCrewd } from '../support/crewd.ts';

let model: FakeOpenAIServer;
let crewd: RunningServer;

beforeAll(async () => {
  model = await startFakeOpenAI({ respond: numberedAnswers() });
  crewd = await startCrewd({ crewDir: join(crewsDir, 'review-crew'), modelUrl: model.url });
});

afterAll(async () => {
  await crewd.close();
  await model.close();
});

interface Operation {
  readonly responses: Record<string, { content?: Record<string, { schema: object; example?: unknown }> }>;
}

describe("the crew's API description", () => {
  it("names the crew's inputs in the kickoff body, with examples and tags", async () => {
    const document = (await apiClient(crewd.url, null).get('/openapi.json')).body;

    const kickoff = document.paths['/kickoff'].post.requestBody.content['application/json'];
    expect(kickoff.schema.properties.inputs).toMatchObject({
      type: 'object',
      properties: { product: { type: 'string' }, audience: { type: 'string' } },
      required: ['product', 'audience'],
    });
    expect(kickoff.example.inputs).toEqual({ product: '<product>', audience: '<audience>' });
    const resume = document.paths['/resume'].post.requestBody.content['application/json'];
    expect(resume.example).toMatchObject({ task_id: '<task_id>', is_approve: true });
    expect(document.paths['/kickoff'].post.tags).toEqual(['Crew']);
    expect(document.paths['/executions'].get.tags).toEqual(['Executions']);
    expect(document.paths['/health/live'].get.tags).toEqual(['Operations']);
    expect(document.tags.map((tag: { name: string }) => tag.name)).toEqual([
      'Crew',
      'Executions',
      'Schedules and triggers',
      'Operations',
    ]);
    expect(document.paths['/schedules'].post.tags).toEqual(['Schedules and triggers']);
    const schedule = document.paths['/schedules'].post.responses['201'].content['application/json'];
    expect(schedule.example).toMatchObject({ cron: '30 8 * * 1-5', timezone: 'Europe/Paris' });
  });

  it('gives an example answer for every route that answers JSON, each valid against its schema', async () => {
    const document = (await apiClient(crewd.url, null).get('/openapi.json')).body;
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'components', ...document.components }, 'components');
    const answered: string[] = [];

    for (const [path, operations] of Object.entries<Record<string, Operation>>(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const json = operation.responses['200']?.content?.['application/json'];
        if (json === undefined) continue;
        answered.push(`${method.toUpperCase()} ${path}`);
        expect(json.example, `${method} ${path}`).toBeDefined();
        const schema = JSON.parse(
          JSON.stringify(json.schema).replaceAll('"#/components/', '"components#/'),
        ) as object;
        const valid = ajv.validate(schema, json.example);
        expect(valid ? [] : ajv.errors, `${method} ${path}`).toEqual([]);
      }
    }
    expect(answered).toContain('GET /status/{kickoffId}');
    expect(answered).toContain('POST /triggers/{name}');
    expect(answered).toHaveLength(21);
    const status =
      document.paths['/status/{kickoffId}'].get.responses['200'].content['application/json'].example;
    expect(status.tasks.map((task: { name: string }) => task.name)).toEqual(['<task_id>']);
  });

  it('describes every webhook crewd sends as OpenAPI 3.1 webhooks', async () => {
    const document = (await apiClient(crewd.url, null).get('/openapi.json')).body;

    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.webhooks)).toEqual([
      'task',
      'step',
      'crew',
      'humanInput',
      'humanInputDeadline',
      'events',
    ]);
    const schemaOf = (name: string) =>
      document.webhooks[name].post.requestBody.content['application/json'].schema;
    expect(schemaOf('task').required).toEqual(
      expect.arrayContaining(['kickoff_id', 'task_id', 'output', 'meta']),
    );
    expect(schemaOf('events').properties.events.items.properties.type.enum).toContain('task_completed');
    expect(schemaOf('humanInputDeadline').properties.event.const).toBe('human_input_deadline_passed');
  });

  it('serves /docs titled for crewd, reading /openapi.json', async () => {
    const page = await fetch(`${crewd.url}/docs/`);
    const html = await page.text();
    const initializer = await (await fetch(`${crewd.url}/docs/static/swagger-initializer.js`)).text();

    expect(page.status).toBe(200);
    expect(html).toContain('<title>crewd API</title>');
    expect(initializer).toContain('/openapi.json');
  });
});

describe('the API description without a token', () => {
  /** Words of a crew that GET /crew shows only with a token. */
  const guarded = [
    'smuggling-crew',
    'Harbour pilot',
    'Steer crates past the tide gauge',
    'Grew up on the night ferry',
    'Chart the midnight crossing',
    'A route with three waypoints',
    'FileReadTool',
    'lighthouse_registry',
    'pilot_agent',
    'crossing_plan',
  ];

  function writeCrew(): string {
    const dir = mkdtempSync(join(tmpdir(), 'crewd-guarded-crew-'));
    writeFileSync(
      join(dir, 'crew.yaml'),
      [
        'name: smuggling-crew',
        'llm: openai/test-model',
        'mcp_servers:',
        '  lighthouse_registry:',
        '    url: http://127.0.0.1:9/mcp',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'agents.yaml'),
      [
        'pilot_agent:',
        '  role: Harbour pilot for {harbour}',
        '  goal: Steer crates past the tide gauge',
        '  backstory: Grew up on the night ferry.',
        '  tools: [FileReadTool]',
        '  mcps: [lighthouse_registry]',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'tasks.yaml'),
      [
        'crossing_plan:',
        '  description: Chart the midnight crossing of {harbour}.',
        '  expected_output: A route with three waypoints.',
        '  agent: pilot_agent',
        '  human_input: true',
      ].join('\n'),
    );
    return dir;
  }

  it("shows the crew's inputs and nothing that GET /crew keeps behind a token", async () => {
    // Its MCP server is never reached: served without it, as --allow-partial does.
    const server = await startCrewd({ crewDir: writeCrew(), modelUrl: model.url, allowPartial: true });
    try {
      const anonymous = apiClient(server.url, null);
      const pages = [
        '/openapi.json',
        '/docs',
        '/docs/',
        '/docs/json',
        '/docs/yaml',
        '/docs/static/swagger-initializer.js',
      ];
      for (const path of pages) {
        const response = await fetch(`${server.url}${path}`);
        expect(response.status, path).toBe(200);
        const text = await response.text();
        for (const word of guarded) expect(text, `${word} in ${path}`).not.toContain(word);
      }
      const document = (await anonymous.get('/openapi.json')).body;
      expect(
        document.paths['/kickoff'].post.requestBody.content['application/json'].schema.properties.inputs
          .required,
      ).toEqual(['harbour']);

      const crew = await apiClient(server.url).get('/crew');
      expect(JSON.stringify(crew.body)).toContain('Chart the midnight crossing');
      expect((await anonymous.get('/crew')).status).toBe(401);
    } finally {
      await server.close();
    }
  });
});
