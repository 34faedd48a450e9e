// Figure 13: from sending the inputs to holding the result, through A2A (one blocking `message/send`) and through
// the HTTP interface (POST /kickoff, then the event stream to the end, then GET /status for the result), in turns
// against the same server, so the figure is what the A2A layer adds.
import { Pool } from 'undici';
import { crewDirs } from '../lib/crew-dirs.ts';
import { crewdClient } from '../lib/crewd-client.ts';
import { benchToken, profileArgs, startCrewdServer } from '../lib/crewd-server.ts';
import { startFakeModel } from '../lib/fake-model.ts';
import { runFigure } from '../lib/figure-main.ts';
import { median, spread } from '../lib/stats.ts';

const figure = '13 A2A kickoff to result';
const metric = 'message/send answered completed';
const target = '<= 1.2x';

runFigure({ figure, metric, target }, async ({ quick, profileDir }) => {
  const model = await startFakeModel();
  const server = await startCrewdServer({
    crewDir: crewDirs.threeTask,
    modelUrl: model.url,
    nodeArgs: profileArgs(profileDir, 'a2a-kickoff'),
  });
  const http = crewdClient(server.url, 4);
  const a2a = new Pool(server.url, { connections: 4 });
  let sent = 0;
  try {
    const viaA2a = async (): Promise<number> => {
      const started = performance.now();
      const response = await a2a.request({
        method: 'POST',
        path: '/a2a',
        headers: { authorization: `Bearer ${benchToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: ++sent,
          method: 'message/send',
          params: {
            message: {
              kind: 'message',
              messageId: `bench-${sent}`,
              role: 'user',
              parts: [{ kind: 'data', data: { topic: `topic ${sent}` } }],
            },
          },
        }),
      });
      const answer = (await response.body.json()) as { result?: { status?: { state?: string } } };
      const elapsed = performance.now() - started;
      if (answer.result?.status?.state !== 'completed')
        throw new Error(`A2A answered ${JSON.stringify(answer)}`);
      return elapsed;
    };
    const viaHttp = async (): Promise<number> => {
      const started = performance.now();
      const id = await http.kickoff({ inputs: { topic: `topic ${++sent}` } });
      const state = await http.waitForEnd(id);
      const { body } = await http.get(`/status/${id}`);
      const elapsed = performance.now() - started;
      if (state !== 'SUCCESS' || typeof (body as { result?: unknown }).result !== 'string') {
        throw new Error(`execution ${id} ended ${state}`);
      }
      return elapsed;
    };
    // Untimed warm-up of both paths.
    await viaA2a();
    await viaHttp();

    const rounds = quick ? 5 : 30;
    const a2aTimes: number[] = [];
    const httpTimes: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      a2aTimes.push(await viaA2a());
      httpTimes.push(await viaHttp());
    }
    const measured = spread(a2aTimes);
    const baseline = median(httpTimes);
    return [
      {
        figure,
        metric,
        unit: 'ms',
        value: measured.median,
        range: measured,
        baseline,
        baselineLabel: 'POST /kickoff, the event stream to the end, GET /status',
        ratio: measured.median / baseline,
        target,
        met: measured.median / baseline <= 1.2,
        note: `${rounds} three-task runs each way, in turns, on one server (SQLite); fake model answers at once`,
      },
    ];
  } finally {
    await a2a.close();
    await http.close();
    await server.stop();
    await model.stop();
  }
});
