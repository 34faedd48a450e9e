import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { unavailableLogIntervalMs } from '../../src/api/unavailable-log.ts';
import { runCrewd, tempDir } from '../cli/crewd-command.ts';
import { apiClient, crewsDir, spawnCrewd, type ApiResponse, type CrewdProcess } from '../support/crewd.ts';
import { mountExt4Disk, type Ext4Disk } from '../support/ext4-disk.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { numberedAnswers, requestsMentioning, userText } from '../support/model-requests.ts';
import { HeldPrompts } from '../support/held-prompts.ts';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.ts';
import { until } from '../support/until.ts';

const plainCrew = join(crewsDir, 'plain-crew');
const probe = mountSmallDisk(1);
const cannotMount = typeof probe === 'string' ? probe : undefined;
if (typeof probe !== 'string') probe.unmount();
if (cannotMount !== undefined) console.warn(`SQLite disk outage tests skipped: ${cannotMount}`);
const skipReason = cannotMount === undefined ? '' : ` (skipped: ${cannotMount})`;
const ext4Probe = mountExt4Disk(8);
const cannotMountExt4 = typeof ext4Probe === 'string' ? ext4Probe : undefined;
if (typeof ext4Probe !== 'string') ext4Probe.unmount();
if (cannotMountExt4 !== undefined)
  console.warn(`SQLite disk turning read-only test skipped: ${cannotMountExt4}`);
const ext4SkipReason = cannotMountExt4 === undefined ? '' : ` (skipped: ${cannotMountExt4})`;

let model: FakeOpenAIServer;
const disks: SmallDisk[] = [];
const processes: CrewdProcess[] = [];

function disk(sizeMiB: number): SmallDisk {
  const mounted = mountSmallDisk(sizeMiB);
  if (typeof mounted === 'string') throw new Error(mounted);
  disks.push(mounted);
  return mounted;
}

/** Each answer is a 503 with `Retry-After` and the contract's error body saying `message`. */
function expectUnavailable(answers: readonly ApiResponse[], message: string): void {
  for (const answer of answers) {
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(answer.body).toEqual({ error: 'Service Unavailable', message, code: 'DEPENDENCY_UNAVAILABLE' });
  }
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
    expectUnavailable(refused, "The database's disk is full; try again later");
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

/** The outage lines crewd logged under `message`, parsed. */
function outageLines(crewd: CrewdProcess, message: string): { time: number; reason: string }[] {
  return crewd
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes(message))
    .map((line) => JSON.parse(line) as { time: number; reason: string });
}

/** The value of one store error counter on the process's /metrics page (0 when absent). */
async function storeErrors(crewd: CrewdProcess, kind: string): Promise<number> {
  const page = (await apiClient(crewd.url).get('/metrics')).body as string;
  return Number(new RegExp(`crewd_store_errors_total\\{kind="${kind}"\\} (\\d+)`).exec(page)?.[1] ?? 0);
}

describe.skipIf(cannotMountExt4 !== undefined)(
  `SQLite on a disk turning read-only while crewd runs${ext4SkipReason}`,
  () => {
    let holdingModel: FakeOpenAIServer;
    const held = new HeldPrompts();
    const ext4Disks: Ext4Disk[] = [];
    const started: CrewdProcess[] = [];

    async function serve(database: string): Promise<CrewdProcess> {
      const crewd = await spawnCrewd({ crewDir: plainCrew, database, modelUrl: holdingModel.url });
      started.push(crewd);
      return crewd;
    }

    beforeAll(async () => {
      const answers = numberedAnswers();
      holdingModel = await startFakeOpenAI({
        respond: (request) => {
          const holding = held.find(userText(request));
          return { ...answers(request), ...(holding === undefined ? {} : { heldUntil: holding.until }) };
        },
      });
    });

    afterEach(async () => {
      for (const crewd of started.splice(0)) {
        if (crewd.child.exitCode === null) crewd.child.kill('SIGKILL');
        await crewd.exited;
      }
      held.letAllGo();
      for (const mounted of ext4Disks.splice(0)) mounted.unmount();
    });

    afterAll(async () => {
      await holdingModel?.close();
    });

    it('answers 503 saying the disk is read-only, fails no execution, and continues intact once restarted on the repaired disk', async () => {
      const mounted = mountExt4Disk(16);
      if (typeof mounted === 'string') throw new Error(mounted);
      ext4Disks.push(mounted);
      const database = join(mounted.directory, 'crewd.db');
      const crewd = await serve(database);
      const api = apiClient(crewd.url);
      const finished: string[] = [];
      for (const topic of ['finished one', 'finished two']) {
        const answer = await api.post('/kickoff', { inputs: { topic } });
        expect(answer.status).toBe(200);
        finished.push(answer.body.kickoff_id as string);
      }
      for (const id of finished) await api.waitForState(id, ['SUCCESS']);
      const heldTopics = ['held one', 'held two'];
      const running: string[] = [];
      for (const topic of heldTopics) {
        held.hold(`Write the note about ${topic}`);
        const answer = await api.post('/kickoff', { inputs: { topic } });
        expect(answer.status).toBe(200);
        running.push(answer.body.kickoff_id as string);
      }
      // Each has saved its outline and waits for its note.
      await until(() =>
        heldTopics.every(
          (topic) => requestsMentioning(holdingModel, `Write the note about ${topic}`).length === 1,
        ),
      );

      mounted.failReadOnly();
      const refused = [];
      for (let index = 0; index < 20; index += 1)
        refused.push(await api.post('/kickoff', { inputs: { topic: `refused ${index}` } }));
      // The notes arrive while nothing can be written: their executions wait for the disk.
      for (const topic of heldTopics) held.letGo(`Write the note about ${topic}`);
      await until(() =>
        heldTopics.every((topic) =>
          holdingModel.answered.some((request) =>
            userText(request).includes(`Write the note about ${topic}`),
          ),
        ),
      );
      for (let index = 20; index < 40; index += 1)
        refused.push(await api.post('/kickoff', { inputs: { topic: `refused ${index}` } }));

      expectUnavailable(refused, "The database's disk is read-only; try again later");
      const ready = await apiClient(crewd.url, null).get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.message).toBe("The database's disk is read-only; try again later");
      // Reads go on: what was saved before the disk turned read-only is still served.
      for (const id of finished) {
        const status = await api.get(`/status/${id}`);
        expect(status.status).toBe(200);
        expect(status.body.state).toBe('SUCCESS');
      }
      // An outage of the store is never an execution's failure.
      for (const id of running) {
        const status = await api.get(`/status/${id}`);
        expect(status.status).toBe(200);
        expect(status.body).toMatchObject({ state: 'RUNNING', current_task: 'note', error: null });
      }
      expect(await storeErrors(crewd, 'read-only')).toBeGreaterThan(0);
      expect(await storeErrors(crewd, 'io-error')).toBe(0);
      expect(crewd.child.exitCode).toBeNull();

      // Summed up at most once per interval, each line saying why, and no stack.
      const answered503 = outageLines(crewd, 'answered 503');
      const waiting = outageLines(crewd, 'waiting for it to come back');
      expect(answered503.length).toBeGreaterThan(0);
      expect(waiting.length).toBeGreaterThan(0);
      for (const lines of [answered503, waiting]) {
        for (const line of lines) expect(line.reason).toMatch(/^The database's disk is read-only/);
        for (const [index, line] of lines.entries())
          if (index > 0)
            expect(line.time - lines[index - 1]!.time).toBeGreaterThanOrEqual(unavailableLogIntervalMs);
      }
      expect(crewd.output()).not.toContain('"stack"');

      crewd.child.kill('SIGKILL');
      expect(await crewd.exited).toEqual({ code: null, signal: 'SIGKILL' });
      mounted.remountWritable();
      const check = new Database(database, { readonly: true });
      try {
        expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        check.close();
      }

      const restarted = await serve(database);
      const after = apiClient(restarted.url);
      for (const id of finished) expect((await after.get(`/status/${id}`)).body.state).toBe('SUCCESS');
      for (const [index, id] of running.entries()) {
        const done = await after.waitForState(id, ['SUCCESS', 'FAILED']);
        expect(done.body.state).toBe('SUCCESS');
        expect(done.body.tasks.map((task: { task_id: string }) => task.task_id)).toEqual([
          'outline',
          'note',
          'summary',
        ]);
        // The outline saved before the outage was kept, not asked for again.
        expect(requestsMentioning(holdingModel, `Outline a note about ${heldTopics[index]}`)).toHaveLength(1);
      }
      const next = await after.post('/kickoff', { inputs: { topic: 'after the repair' } });
      expect(next.status).toBe(200);
      expect(
        (await after.waitForState(next.body.kickoff_id as string, ['SUCCESS', 'FAILED'])).body.state,
      ).toBe('SUCCESS');
      expect((await apiClient(restarted.url, null).get('/health/ready')).status).toBe(200);
    }, 180_000);
  },
);

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
