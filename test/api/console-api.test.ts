import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aliceToken, bobToken, readJson, startApi } from './support/api-harness.ts';
import type { ApiHarness } from './support/api-harness.ts';
import { exampleCrew, makeExecution, taskOutput } from './support/example-crew.ts';
import { InMemoryExecutionService } from './support/in-memory-execution-service.ts';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

describe('GET /crew', () => {
  it('describes the crew: name, process, agents with role and model, tasks, inputs', async () => {
    const response = await api.request('/crew', { token: aliceToken });
    const body = await readJson(response);

    expect(response.status).toBe(200);
    expect(body).toMatchObject({
      name: 'research-crew',
      process: 'sequential',
      inputs: ['topic', 'current_year'],
    });
    expect(body.agents).toEqual([
      expect.objectContaining({ name: 'researcher', role: 'Senior Researcher', model: null, tools: [] }),
      expect.objectContaining({ name: 'writer', role: 'Technical Writer', model: null }),
    ]);
    expect(body.tasks.map((task: { name: string }) => task.name)).toEqual(['research', 'review', 'write']);
    expect(body.tasks[1]).toEqual({
      name: 'review',
      description: 'Do review about {topic}',
      expected_output: 'A review for {current_year}',
      agent: 'researcher',
      human_input: true,
      output_format: 'raw',
      output_json: null,
    });
    // A crew's placeholders are all required text.
    expect(body.input_fields).toEqual([
      { name: 'topic', required: true, type: 'string', description: null },
      { name: 'current_year', required: true, type: 'string', description: null },
    ]);
  });

  it("shows a null agent for a task a hierarchical crew's manager leads alone", async () => {
    const managed = {
      ...exampleCrew,
      process: 'hierarchical' as const,
      managerLlm: { model: 'openai/x' },
      tasks: exampleCrew.tasks.map(({ agent: _assigned, ...task }) => task),
    };
    const own = await startApi({ service: new InMemoryExecutionService(managed) });
    try {
      const response = await own.request('/crew', { token: aliceToken });
      const body = await readJson(response);

      expect(response.status).toBe(200);
      expect(body.process).toBe('hierarchical');
      expect(body.tasks.map((task: { agent: unknown }) => task.agent)).toEqual([null, null, null]);
    } finally {
      await own.close();
    }
  });

  it('needs a token', async () => {
    const response = await api.request('/crew', { token: null });
    expect(response.status).toBe(401);
    expect(await readJson(response)).toMatchObject({ code: 'UNAUTHORIZED' });
  });
});

describe('GET /executions/{id}', () => {
  it('gives inputs, feedback and a timeline of task attempts with their tokens', async () => {
    const service = api.service;
    const id = 'detail-1';
    service.put(makeExecution({ id, state: 'RUNNING', meta: { ticket: 7 } }));
    service.appendEvent(id, 'execution-start', { state: 'RUNNING' });
    service.appendEvent(id, 'task-start', { task_id: 'research', agent: 'Senior Researcher', attempt: 1 });
    service.appendEvent(id, 'step-end', { task_id: 'research', thought: 'done', tool: null });
    service.appendEvent(id, 'task-end', { task_id: 'research', attempt: 1 });
    service.appendEvent(id, 'task-start', { task_id: 'review', agent: 'Senior Researcher', attempt: 1 });
    service.appendEvent(id, 'task-end', { task_id: 'review', attempt: 1 });
    service.appendEvent(id, 'task-start', { task_id: 'review', agent: 'Senior Researcher', attempt: 2 });
    const pendingOutput = {
      ...taskOutput('review', 'Second draft', 2),
      usage: { ...taskOutput('x', '').usage, totalTokens: 40 },
    };
    service.put({
      ...service.peek(id)!,
      state: 'PAUSED',
      outputs: [taskOutput('research', 'Findings')],
      feedback: [
        { taskId: 'review', attempt: 1, text: 'Shorter, please', approved: false, output: 'First draft' },
      ],
      pending: { taskId: 'review', attempt: 2, output: pendingOutput },
      lastEventSequence: 7,
    });

    const response = await api.request(`/executions/${id}`);
    const body = await readJson(response);

    expect(response.status).toBe(200);
    expect(body).toMatchObject({
      kickoff_id: id,
      state: 'PAUSED',
      inputs: { topic: 'AI', current_year: '2025' },
      meta: { ticket: 7 },
      feedback: [{ task_id: 'review', attempt: 1, feedback: 'Shorter, please', approved: false }],
      last_event_id: 7,
      pending_human_input: { task_id: 'review', attempt: 2, output: 'Second draft' },
    });
    expect(body.timeline).toEqual([
      {
        task_id: 'research',
        agent: 'Senior Researcher',
        attempt: 1,
        started_at: expect.any(String),
        ended_at: expect.any(String),
        total_tokens: 15,
      },
      {
        task_id: 'review',
        agent: 'Senior Researcher',
        attempt: 1,
        started_at: expect.any(String),
        ended_at: expect.any(String),
        total_tokens: null,
      },
      {
        task_id: 'review',
        agent: 'Senior Researcher',
        attempt: 2,
        started_at: expect.any(String),
        ended_at: null,
        total_tokens: 40,
      },
    ]);
    for (const entry of body.timeline) {
      if (entry.ended_at !== null)
        expect(Date.parse(entry.ended_at)).toBeGreaterThanOrEqual(Date.parse(entry.started_at));
    }
  });

  it('answers a new execution without events at once', async () => {
    api.service.put(makeExecution({ id: 'detail-new' }));
    const body = await readJson(await api.request('/executions/detail-new'));
    expect(body).toMatchObject({ state: 'PENDING', timeline: [], last_event_id: 0, feedback: [] });
  });

  it("shows the leg's webhooks for repeating on /resume, never their credentials", async () => {
    api.service.put({
      ...makeExecution({ id: 'detail-hooks' }),
      webhooks: {
        taskUrl: 'https://hooks.example.com/task',
        stepUrl: null,
        crewUrl: 'https://ops:hunter2@hooks.example.com/crew',
        humanInput: { url: 'https://hooks.example.com/review' },
        events: {
          url: 'https://hooks.example.com/stream',
          types: null,
          realtime: false,
          authentication: { strategy: 'bearer', token: 'stream-secret' },
        },
      },
    });
    const response = await api.request('/executions/detail-hooks');
    const text = await response.text();

    expect(JSON.parse(text).webhooks).toEqual({
      taskWebhookUrl: 'https://hooks.example.com/task',
      stepWebhookUrl: null,
      crewWebhookUrl: 'https://hooks.example.com/crew',
      webhooks: {
        url: 'https://hooks.example.com/stream',
        events: null,
        realtime: false,
        authentication: { strategy: 'bearer' },
      },
      withheld: ['crewWebhookUrl', 'webhooks'],
    });
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('stream-secret');
  });

  it('withholds URLs whose query string or path carries a secret', async () => {
    api.service.put({
      ...makeExecution({ id: 'detail-query-secrets' }),
      webhooks: {
        taskUrl: 'https://hooks.example.com/task?access_token=task-hook-secret',
        stepUrl: 'https://hooks.slack.com/services/T0001/B0001/AbCdEfGhIjKlMnOpQrStUvWx',
        crewUrl: 'https://hooks.example.com/crew?run=7',
        humanInput: null,
        events: { url: 'https://hooks.example.com/stream?api_key=stream-key', types: null, realtime: true },
      },
    });
    const response = await api.request('/executions/detail-query-secrets');
    const text = await response.text();

    expect(JSON.parse(text).webhooks).toEqual({
      taskWebhookUrl: 'https://hooks.example.com/task?access_token=REDACTED',
      stepWebhookUrl: 'https://hooks.slack.com/services/T0001/B0001/REDACTED',
      crewWebhookUrl: 'https://hooks.example.com/crew?run=7',
      webhooks: {
        url: 'https://hooks.example.com/stream?api_key=REDACTED',
        events: null,
        realtime: true,
        authentication: null,
      },
      withheld: ['taskWebhookUrl', 'stepWebhookUrl', 'webhooks'],
    });
    for (const secret of ['task-hook-secret', 'AbCdEfGhIjKlMnOpQrStUvWx', 'stream-key'])
      expect(text).not.toContain(secret);
  });

  it("answers 404 for an unknown execution and for another user's", async () => {
    api.service.put(makeExecution({ id: 'alices', owner: { tokenId: 'alice-token', userId: 'alice' } }));

    expect((await api.request('/executions/alices', { token: aliceToken })).status).toBe(200);
    const foreign = await api.request('/executions/alices', { token: bobToken });
    const unknown = await api.request('/executions/no-such-id', { token: bobToken });
    expect(foreign.status).toBe(404);
    expect(await readJson(foreign)).toEqual({
      ...(await readJson(unknown)),
      message: 'Execution alices not found',
    });
  });
});

describe('/console', () => {
  it('serves the console without a token, with a strict Content-Security-Policy', async () => {
    const response = await api.request('/console/', { token: null });
    const html = await response.text();

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).toContain("frame-ancestors 'none'");
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    // Nothing inline and nothing from elsewhere: every script and style is one of the server's own files.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();

    const asset = await fetch(`${api.url}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(asset.headers.get('cache-control')).toContain('immutable');
  });

  it('keeps its JavaScript within 150 KB gzipped', async () => {
    const html = await (await api.request('/console', { token: null })).text();
    const scripts = [...html.matchAll(/src="(\/console\/assets\/[^"]+\.js)"/g)].map((match) => match[1]!);
    let total = 0;
    for (const path of scripts) {
      const response = await api.request(path, { token: null });
      total += gzipSync(Buffer.from(await response.arrayBuffer())).length;
    }
    expect(scripts.length).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(150 * 1024);
  });

  it('answers unknown console files in the error shape, and / stays Healthy', async () => {
    const missing = await api.request('/console/assets/nothing.js', { token: null });
    expect(missing.status).toBe(404);
    expect(await readJson(missing)).toMatchObject({ code: 'NOT_FOUND' });
    const root = await api.request('/', { token: null });
    expect(await root.text()).toBe('Healthy');
  });
});
