// Figure 16: fair shares among tokens. One token has 1,000 executions waiting for a slot; another token kicks off
// one. Measured from sending that kickoff to the first event of its execution, on a stream opened once the kickoff
// answered. Started in order of arrival it would wait for the whole queue to drain (about 1,000 runs' worth of
// slots); started round-robin across tokens it takes the next free slot.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { startFakeOpenAI } from '../../test/support/fake-openai-server.ts';
import { userText } from '../../test/support/model-requests.ts';
import { crewDirs, repoRoot } from '../lib/crew-dirs.ts';
import { crewdClient } from '../lib/crewd-client.ts';
import { startCrewdServer } from '../lib/crewd-server.ts';
import { runFigure } from '../lib/figure-main.ts';
import { median } from '../lib/stats.ts';

const figure = '16 fair shares, SQLite';
const metric = "another token's kickoff while one has 1,000 queued, to its first event";
const target = '<= 200 ms';
const queued = 1000;
const concurrency = 8;
/** Each model answer of the queued token's executions takes this long, so a slot frees up every few ms. */
const answerMs = 50;

/** A second organization token, made on the database with the CLI as an operator would. */
function createToken(database: string): string {
  const output = execFileSync(
    process.execPath,
    [
      join(repoRoot, 'bin/crewd.js'),
      'tokens',
      'create',
      '--org',
      '--name',
      'second team',
      '--database',
      database,
    ],
    { cwd: repoRoot, encoding: 'utf8' },
  );
  return output.trim().split('\n').at(-1)!;
}

/** Sends a kickoff with `token`, then follows its event stream; ms from sending to the first event. */
async function kickoffToFirstEvent(url: string, token: string, topic: string): Promise<number> {
  const pool = new Pool(url, { connections: 2 });
  const authorization = `Bearer ${token}`;
  try {
    const sent = performance.now();
    const kickoff = await pool.request({
      method: 'POST',
      path: '/kickoff',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { topic } }),
    });
    const answer = await kickoff.body.text();
    if (kickoff.statusCode !== 200) throw new Error(`kickoff answered ${kickoff.statusCode}: ${answer}`);
    const id = (JSON.parse(answer) as { kickoff_id: string }).kickoff_id;
    const events = await pool.request({
      method: 'GET',
      path: `/executions/${id}/events`,
      headers: { authorization, accept: 'text/event-stream' },
      signal: AbortSignal.timeout(120_000),
    });
    events.body.setEncoding('utf8');
    for await (const chunk of events.body as AsyncIterable<string>) {
      if (/^id: ?\d+$/m.test(chunk)) {
        const at = performance.now();
        events.body.destroy();
        return at - sent;
      }
    }
    throw new Error(`the event stream of ${id} ended without an event`);
  } finally {
    await pool.close();
  }
}

/** Executions waiting as PENDING, from /metrics. */
async function waitingNow(url: string): Promise<number> {
  const { body } = await crewdClient(url).get('/metrics');
  const line = String(body)
    .split('\n')
    .find((entry) => entry.startsWith('crewd_executions{') && entry.includes('state="PENDING"'));
  return Number(line?.split(' ').at(-1) ?? Number.NaN);
}

runFigure({ figure, metric, target }, async ({ quick }) => {
  const model = await startFakeOpenAI({
    respond: (request) => ({
      content: 'A fact.\nAnother fact.\nA third fact.',
      delayMs: userText(request).includes('queued') ? answerMs : 0,
    }),
  });
  const dir = mkdtempSync(join(tmpdir(), 'crewd-bench-fair-'));
  const database = join(dir, 'crewd.db');
  const otherToken = createToken(database);
  const server = await startCrewdServer({
    crewDir: crewDirs.threeTask,
    modelUrl: model.url,
    database,
    env: { CREWD_CONCURRENCY: String(concurrency) },
  });
  try {
    const busy = crewdClient(server.url, 32);
    const batches = Array.from({ length: queued / 50 }, (_, batch) => batch);
    for (const batch of batches) {
      await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          busy.kickoff({ inputs: { topic: `queued ${batch * 50 + index}` } }),
        ),
      );
    }
    await busy.close();
    const waitingBefore = await waitingNow(server.url);
    const firsts: number[] = [];
    for (let round = 0; round < (quick ? 3 : 10); round += 1) {
      firsts.push(await kickoffToFirstEvent(server.url, otherToken, `second team ${round}`));
    }
    const waitingAfter = await waitingNow(server.url);
    const value = median(firsts);
    return [
      {
        figure,
        metric,
        unit: 'ms',
        value,
        range: { min: Math.min(...firsts), max: Math.max(...firsts), rounds: firsts.length },
        baseline: null,
        ratio: null,
        target,
        met: value <= 200,
        note:
          `CREWD_CONCURRENCY=${concurrency}, the queued token's answers ${answerMs} ms each; ` +
          `${waitingBefore} waiting before the rounds and ${waitingAfter} after`,
      },
    ];
  } finally {
    await server.stop();
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
