import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCrewd, tempDir } from '../cli/crewd-command.ts';
import { apiClient, crewsDir, spawnCrewd, type CrewdProcess } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers } from '../support/model-requests.ts';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.ts';
import { until } from '../support/until.ts';

const plainCrew = join(crewsDir, 'plain-crew');
const probe = mountSmallDisk(1);
const cannotMount = typeof probe === 'string' ? probe : undefined;
if (typeof probe !== 'string') probe.unmount();
if (cannotMount !== undefined) console.warn(`SQLite disk outage tests skipped: ${cannotMount}`);
const skipReason = cannotMount === undefined ? '' : ` (skipped: ${cannotMount})`;

let model: FakeOpenAIServer;
const disks: SmallDisk[] = [];
const processes: CrewdProcess[] = [];

function disk(sizeMiB: number): SmallDisk {
  const mounted = mountSmallDisk(sizeMiB);
  if (typeof mounted === 'string') throw new Error(mounted);
  disks.push(mounted);
  return mounted;
}

describe.skipIf(cannotMount !== undefined)(`SQLite on a full or read-only disk${skipReason}`, () => {
  beforeAll(async () => {
    model = await startFakeOpenAI({ respond: numberedAnswers() });
  });

  afterEach(async () => {
    for (const crewd of processes.splice(0)) {
      if (crewd.child.exitCode === null) crewd.child.kill('SIGKILL');
      await crewd.exited;
    }
    for (const mounted of disks.splice(0)) mounted.unmount();
  });

  afterAll(async () => {
    await model?.close();
  });

  it('answers 503 saying the disk is full, logs it once in a while, and recovers intact once space is freed', async () => {
    const small = disk(16);
    const database = join(small.directory, 'crewd.db');
    const crewd = await spawnCrewd({ crewDir: plainCrew, database, modelUrl: model.url });
    processes.push(crewd);
    const api = apiClient(crewd.url);
    const accepted: string[] = [];
    const first = await api.post('/kickoff', { inputs: { topic: 'before' } });
    accepted.push(first.body.kickoff_id as string);
    await api.waitForState(accepted[0]!, ['SUCCESS']);

    small.fill();
    // The log may still have room for a few small commits; the disk runs out within a few.
    const refused = [];
    for (let index = 0; refused.length < 50 && index < 5_000; index += 1) {
      const answer = await api.post('/kickoff', { inputs: { topic: `full ${index}` } });
      if (answer.status === 200) accepted.push(answer.body.kickoff_id as string);
      else refused.push(answer);
    }
    expect(refused.length).toBe(50);
    for (const answer of refused) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(answer.body).toEqual({
        error: 'Service Unavailable',
        message: "The database's disk is full; try again later",
        code: 'DEPENDENCY_UNAVAILABLE',
      });
    }
    const ready = await apiClient(crewd.url, null).get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.message).toBe("The database's disk is full; try again later");

    small.free();
    await until(async () => (await apiClient(crewd.url, null).get('/health/ready')).status === 200);
    const after = await api.post('/kickoff', { inputs: { topic: 'after' } });
    expect(after.status).toBe(200);
    accepted.push(after.body.kickoff_id as string);
    for (const id of accepted)
      expect((await api.waitForState(id, ['SUCCESS', 'FAILED'])).body.state).toBe('SUCCESS');

    // Summed up, not a stack per request.
    const lines = crewd.output().split('\n');
    const outageLines = lines.filter((line) => line.includes('answered 503'));
    expect(outageLines.length).toBeGreaterThan(0);
    expect(outageLines.length).toBeLessThan(refused.length);
    expect(outageLines[0]).toContain("The database's disk is full");
    expect(crewd.output()).not.toContain('"stack"');

    crewd.child.kill('SIGTERM');
    await crewd.exited;
    const check = new Database(database, { readonly: true });
    try {
      expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      check.close();
    }
  }, 180_000);

  it('says at start that the disk is read-only, and exits non-zero', async () => {
    const small = disk(16);
    const database = join(small.directory, 'crewd.db');
    const created = await runCrewd(['tokens', 'create', '--org', '--database', database]);
    expect(created.code).toBe(0);
    small.readOnly(true);
    const serve = await runCrewd(['serve', plainCrew, '--port', '0', '--database', database], {
      env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test' },
    });
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain(
      `Cannot open the SQLite database at ${database}: the database's disk is read-only`,
    );
    expect(serve.stderr).not.toMatch(/\n\s+at /);
  }, 120_000);
});

describe('a damaged SQLite file at start', () => {
  it('says the file is not a SQLite database, and exits non-zero', async () => {
    const database = join(tempDir(), 'crewd.db');
    writeFileSync(database, Buffer.alloc(8192, 0x5a));
    const serve = await runCrewd(['serve', plainCrew, '--port', '0', '--database', database], {
      env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'sk-test' },
    });
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain(
      `Cannot open the SQLite database at ${database}: the file is not a SQLite database (or its header is damaged)`,
    );
  }, 60_000);

  it('says the file is damaged when its schema cannot be read', async () => {
    const database = join(tempDir(), 'crewd.db');
    const created = await runCrewd(['tokens', 'create', '--org', '--database', database]);
    expect(created.code).toBe(0);
    // The first page after the 100-byte header holds the schema; the header stays valid.
    const file = new Database(database);
    file.pragma('journal_mode = DELETE');
    file.close();
    const damaged = readFileSync(database);
    damaged.fill(0xff, 100, 4096);
    writeFileSync(database, damaged);
    const serve = await runCrewd(['serve', plainCrew, '--port', '0', '--database', database], {
      env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'sk-test' },
    });
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain(`Cannot open the SQLite database at ${database}: the file is damaged`);
  }, 60_000);
});
