import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, startApi } from './support/api-harness.ts';
import type { ApiHarness } from './support/api-harness.ts';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const inputs = { topic: 'AI agents', current_year: '2025' };
const kib = (size: number): string => 'x'.repeat(size * 1024);

async function post(path: string, body: unknown) {
  const response = await api.request(path, { body });
  return { status: response.status, body: await readJson(response) };
}

describe('size limits below the body limit', () => {
  it('refuses meta over 16 KiB and inputs over 256 KiB with 400, and takes them under', async () => {
    const bigMeta = await post('/kickoff', { inputs, meta: { note: kib(16) } });
    expect(bigMeta.status).toBe(400);
    expect(bigMeta.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(JSON.stringify(bigMeta.body)).toContain('meta must be at most 16 KiB as JSON');

    const bigInputs = await post('/kickoff', { inputs: { ...inputs, topic: kib(256) } });
    expect(bigInputs.status).toBe(400);
    expect(JSON.stringify(bigInputs.body)).toContain('inputs must be at most 256 KiB as JSON');

    const kickoffs = api.service.kickoffs.length;
    const fits = await post('/kickoff', { inputs: { ...inputs, topic: kib(200) }, meta: { note: kib(15) } });
    expect(fits.status).toBe(200);
    expect(api.service.kickoffs).toHaveLength(kickoffs + 1);
  });

  it('refuses human feedback over 64 KiB with 400', async () => {
    const resume = await post('/resume', {
      execution_id: 'some-id',
      task_id: 'outline_task',
      human_feedback: kib(64),
      is_approve: false,
    });
    expect(resume.status).toBe(400);
    expect(JSON.stringify(resume.body)).toContain('human_feedback must be at most 64 KiB as JSON');
  });
});
