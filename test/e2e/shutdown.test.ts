import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { requestsMentioning, userText } from '../support/model-requests.ts';
import { apiClient, crewsDir, spawnCrewd, testToken } from '../support/crewd.ts';
import { until } from '../support/until.ts';

let model: FakeOpenAIServer;
let release = (): void => {};
const held = new Promise<void>((done) => (release = done));

beforeAll(async () => {
  model = await startFakeOpenAI({
    respond: (request) =>
      userText(request).includes('about glaciers')
        ? { content: 'Held.', heldUntil: held }
        : { content: 'Done.' },
  });
});

afterAll(async () => {
  release();
  await model.close();
});

const options = { crewDir: join(crewsDir, 'plain-crew') };

describe('shutting down', () => {
  it('on SIGTERM closes a request whose body never comes once the grace period is over, and exits 0', async () => {
    const crewd = await spawnCrewd({
      ...options,
      modelUrl: model.url,
      env: { CREWD_SHUTDOWN_GRACE_MS: '200' },
    });
    const { port } = new URL(crewd.url);
    const socket = connect({ port: Number(port), host: '127.0.0.1' });
    socket.on('error', () => undefined);
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    // `Expect: 100-continue` makes the server say when it has the headers: the request is then in progress.
    socket.write(
      `POST /kickoff HTTP/1.1\r\nHost: crewd\r\nAuthorization: Bearer ${testToken}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n{"inputs":',
    );
    await until(() => received.includes('100 Continue'));

    crewd.child.kill('SIGTERM');
    expect((await crewd.exited).code).toBe(0);
    await closed;
    expect(received).not.toContain('kickoff_id');
  });

  it('exits at once on a second SIGTERM while running tasks still have their grace period', async () => {
    const crewd = await spawnCrewd({
      ...options,
      modelUrl: model.url,
      env: { CREWD_SHUTDOWN_GRACE_MS: '3600000' },
    });
    try {
      await apiClient(crewd.url).post('/kickoff', { inputs: { topic: 'glaciers' } });
      await until(() => requestsMentioning(model, 'about glaciers').length === 1);
      crewd.child.kill('SIGTERM');
      await until(() => crewd.output().includes('shutting down'));

      crewd.child.kill('SIGTERM');
      expect(await crewd.exited).toEqual({ code: 143, signal: null });
      expect(crewd.output()).toContain('Received SIGTERM again, exiting now');
    } finally {
      crewd.child.kill('SIGKILL');
    }
  });
});
