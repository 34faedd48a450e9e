// `npm run chaos`: the attacks and failures crewd must survive, on loopback, each bounded; prints one table.
// Not part of `npm test`: it takes a few minutes and its bounds are measured, not asserted per event.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeOpenAI } from '../../test/support/fake-openai-server.ts';
import { crewDirs } from '../lib/crew-dirs.ts';
import { formatChaosTable, type ChaosRow } from './chaos-row.ts';
import { spawnChaosServer } from './chaos-server.ts';
import { databaseRestart, killUnderLoad, shutdownWithSlowClients } from './crash-scenarios.ts';
import { forgedFeedback, slowReceiver } from './delivery-and-prompts.ts';
import { metaMemory, slowBodyFlood } from './http-attacks.ts';
import { startOwnPostgres } from '../../test/support/own-postgres.ts';

let received = 0;
const prompts: string[] = [];
const model = await startFakeOpenAI({
  respond: (request) => {
    received += 1;
    model.requests.length = 0;
    const text = JSON.stringify(request.body?.messages ?? '');
    if (text.includes('A human reviewer approved this.')) prompts.push(text);
    // The answer says when it left, so a webhook receiver can tell how long it took to reach it.
    return { content: `Answer ${received}, sent at ${Date.now()}.`, delayMs: 20 };
  },
});

const directory = mkdtempSync(join(tmpdir(), 'crewd-chaos-'));
const crewDir = crewDirs.threeTask;
const rows: ChaosRow[] = [];
const attempt = async (name: string, scenario: () => Promise<ChaosRow>): Promise<void> => {
  process.stderr.write(`chaos: ${name}…\n`);
  try {
    rows.push(await scenario());
  } catch (error) {
    rows.push({
      scenario: name,
      tried: 0,
      survived: 0,
      lost: 0,
      serverErrors: 0,
      bound: `did not run: ${String(error)}`,
      held: false,
    });
  }
};

try {
  const server = await spawnChaosServer({
    crewDir,
    modelUrl: model.url,
    database: join(directory, 'main.db'),
  });
  try {
    await attempt('slow-body flood', () => slowBodyFlood(server));
    await attempt('meta memory', () => metaMemory(server));
    await attempt('slow receiver', () => slowReceiver(server));
    await attempt('forged feedback', () => forgedFeedback(server, () => prompts));
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  const crash = { crewDir, modelUrl: model.url, modelRequests: () => received };
  await attempt('kill -9 under load', () =>
    killUnderLoad({ ...crash, database: join(directory, 'crash.db') }),
  );
  await attempt('shutdown with slow clients', () =>
    shutdownWithSlowClients({ ...crash, database: join(directory, 'shutdown.db') }),
  );
  await attempt('database restart', async () => {
    const postgres = await startOwnPostgres();
    try {
      return await databaseRestart(crash, postgres);
    } finally {
      postgres.stop();
    }
  });
} finally {
  await model.close();
  rmSync(directory, { recursive: true, force: true });
}

process.stdout.write(`${formatChaosTable(rows)}\n`);
process.exitCode = rows.every((row) => row.held) ? 0 : 1;
