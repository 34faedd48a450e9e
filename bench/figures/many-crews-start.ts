// Figure 19: a server of 100 crews beside a server of one: the memory each extra crew takes (RSS once answering)
// and the time from starting `node bin/crewd.js serve …` to the first 200 on GET /.
import { request } from 'undici';
import { profileArgs, startCrewdServer } from '../lib/crewd-server.ts';
import { startFakeModel } from '../lib/fake-model.ts';
import { runFigure } from '../lib/figure-main.ts';
import { manyCrews } from '../lib/many-crews.ts';
import { rssOf } from '../lib/proc-readings.ts';
import { median, spread } from '../lib/stats.ts';

const figure = '19 100 crews in one server';
const crewCount = 100;

/** Asks GET / until it answers 200. */
async function firstOk(url: string): Promise<void> {
  const deadline = performance.now() + 60_000;
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

interface Start {
  readonly ms: number;
  readonly rss: number;
}

runFigure(
  { figure, metric: 'start and memory, 100 crews', target: '<= 3 s; <= 2 MB per crew' },
  async ({ quick, profileDir }) => {
    const model = await startFakeModel();
    const crews = manyCrews(crewCount);
    try {
      // A fresh SQLite database each start: every crew's files are kept as its first version on the way.
      const start = async (dirs: readonly string[]): Promise<Start> => {
        const started = performance.now();
        const server = await startCrewdServer({
          crewDir: dirs[0]!,
          moreCrewDirs: dirs.slice(1),
          modelUrl: model.url,
          nodeArgs: profileArgs(profileDir, dirs.length === 1 ? 'one-crew' : `${dirs.length}-crews`),
        });
        try {
          await firstOk(server.url);
          const ms = performance.now() - started;
          // Read once the start's garbage has had a moment to be collected, as a server waiting for work holds it.
          await new Promise((done) => setTimeout(done, 1000));
          return { ms, rss: rssOf(server.pid) };
        } finally {
          await server.stop();
        }
      };
      const one = crews.dirs.slice(0, 1);
      // Untimed first starts: the transpile and file system caches are warm on any machine but a new one.
      if (!quick) {
        await start(one);
        await start(crews.dirs);
      }
      const rounds = quick ? 1 : 5;
      const alone: Start[] = [];
      const many: Start[] = [];
      for (let round = 0; round < rounds; round += 1) {
        // Alternated, so noise from another process lands on both alike.
        if (round % 2 === 0) {
          alone.push(await start(one));
          many.push(await start(crews.dirs));
        } else {
          many.push(await start(crews.dirs));
          alone.push(await start(one));
        }
      }
      const startMany = spread(many.map((reading) => reading.ms));
      const startAlone = median(alone.map((reading) => reading.ms));
      const mb = (bytes: number): number => bytes / 1024 / 1024;
      const rssAlone = median(alone.map((reading) => reading.rss));
      const rssMany = median(many.map((reading) => reading.rss));
      const perCrew = spread(many.map((reading) => mb(reading.rss - rssAlone) / (crewCount - 1)));
      return [
        {
          figure,
          metric: `process start to first 200 on GET /, ${crewCount} crews`,
          unit: 'ms',
          value: startMany.median,
          range: startMany,
          baseline: startAlone,
          baselineLabel: 'the same server with one crew',
          ratio: startMany.median / startAlone,
          target: '<= 3 s',
          met: startMany.median <= 3000,
          note: `${rounds} starts of each, alternating, each with a fresh SQLite database; ${crewCount} copies of crews/three-task`,
        },
        {
          figure,
          metric: `RSS added per crew, ${crewCount} crews against one`,
          unit: 'MB',
          value: perCrew.median,
          range: perCrew,
          baseline: mb(rssAlone),
          baselineLabel: 'RSS of the same server with one crew (MB)',
          ratio: rssMany / rssAlone,
          target: '<= 2 MB',
          met: perCrew.median <= 2,
          note: `RSS 1 s after the first 200: ${mb(rssMany).toFixed(0)} MB with ${crewCount} crews, ${mb(rssAlone).toFixed(0)} MB with one; no MCP servers`,
        },
      ];
    } finally {
      crews.remove();
      await model.stop();
    }
  },
);
