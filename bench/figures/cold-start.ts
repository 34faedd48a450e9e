// Figure 5: from starting `node bin/crewd.js serve …` to the first 200 on GET /, beside a bare Node HTTP server.
import { spawn } from 'node:child_process';
import { request } from 'undici';
import { crewDirs } from '../lib/crew-dirs.ts';
import { profileArgs, startCrewdServer } from '../lib/crewd-server.ts';
import { startFakeModel } from '../lib/fake-model.ts';
import { runFigure } from '../lib/figure-main.ts';
import { median, spread } from '../lib/stats.ts';

const figure = '5 cold start';
const metric = 'process start to first 200 on GET /';
const target = '<= 700 ms';

const bareServer = `
const server = require('node:http').createServer((request, response) => response.end('Healthy'));
server.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

/** Asks GET / until it answers 200 (a server may print its URL a moment before it answers). */
async function firstOk(url: string): Promise<void> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    try {
      const response = await request(`${url}/`, { reset: true });
      await response.body.dump();
      if (response.statusCode === 200) return;
    } catch {
      // not answering yet
    }
    if (performance.now() > deadline) throw new Error(`${url} never answered 200 on GET /`);
    await new Promise((done) => setTimeout(done, 5));
  }
}

/** Starts the bare server and resolves with the milliseconds to its first 200; it is stopped after. */
async function bareStart(): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', bareServer], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const url = await new Promise<string>((resolve) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /http:\/\/127\.0\.0\.1:\d+/.exec(output);
      if (match !== null) resolve(match[0]);
    });
  });
  await firstOk(url);
  const elapsed = performance.now() - started;
  child.kill('SIGTERM');
  await exited;
  return elapsed;
}

runFigure({ figure, metric, target }, async ({ quick, profileDir }) => {
  const model = await startFakeModel();
  try {
    const crewdStart = async (): Promise<number> => {
      const started = performance.now();
      const server = await startCrewdServer({
        crewDir: crewDirs.threeTask,
        modelUrl: model.url,
        nodeArgs: profileArgs(profileDir, 'cold-start'),
      });
      try {
        await firstOk(server.url);
        return performance.now() - started;
      } finally {
        await server.stop();
      }
    };
    // Untimed first starts: the transpile cache and the file system cache are warm on any machine but a new one.
    if (!quick) {
      await crewdStart();
      await bareStart();
    }

    const rounds = quick ? 2 : 7;
    const crewdTimes: number[] = [];
    const bareTimes: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      crewdTimes.push(await crewdStart());
      bareTimes.push(await bareStart());
    }
    const crewd = spread(crewdTimes);
    const bare = median(bareTimes);
    return [
      {
        figure,
        metric,
        unit: 'ms',
        value: crewd.median,
        range: crewd,
        baseline: bare,
        baselineLabel: 'node -e with a bare http server answering GET /',
        ratio: crewd.median / bare,
        target,
        met: crewd.median <= 700,
        note: `${rounds} starts, each with a fresh SQLite database`,
      },
    ];
  } finally {
    await model.stop();
  }
});
