// Figure 15: many schedules due at the same second on two processes sharing PostgreSQL: each tick starts exactly
// one execution, and how long after the due time the executions exist.
import { request } from 'undici';
import { createTestDatabase } from '../../test/support/postgres-database.ts';
import { crewDirs } from '../lib/crew-dirs.ts';
import { benchToken, startCrewdServer, type CrewdServer } from '../lib/crewd-server.ts';
import { startFakeModel } from '../lib/fake-model.ts';
import { runFigure } from '../lib/figure-main.ts';
import { median } from '../lib/stats.ts';

const figure = '15 schedules, 2 processes, PostgreSQL';
const metric = 'executions per tick';
const target = '= 1';

async function call(
  server: CrewdServer,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await request(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${benchToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${path}: ${response.statusCode} ${text}`);
  return JSON.parse(text);
}

interface Listed {
  readonly created_at: string;
  readonly meta: { readonly schedule?: { readonly id: string } } | null;
}

/** Every execution the schedules started, read page by page. */
async function scheduledExecutions(server: CrewdServer): Promise<Listed[]> {
  const found: Listed[] = [];
  let cursor: string | null = null;
  do {
    const page = (await call(
      server,
      'GET',
      `/executions?limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
    )) as { items: Listed[]; next_cursor: string | null };
    found.push(...page.items.filter((item) => item.meta?.schedule !== undefined));
    cursor = page.next_cursor;
  } while (cursor !== null);
  return found;
}

runFigure({ figure, metric, target }, async ({ quick }) => {
  const count = quick ? 200 : 1000;
  const model = await startFakeModel();
  const database = await createTestDatabase();
  const servers: CrewdServer[] = [];
  try {
    for (let index = 0; index < 2; index += 1) {
      servers.push(
        await startCrewdServer({ crewDir: crewDirs.threeTask, modelUrl: model.url, database: database.url }),
      );
    }
    // One instant for every schedule, far enough ahead to make them all first: a cron naming its second.
    const due = new Date(Math.ceil((Date.now() + (quick ? 8_000 : 20_000)) / 1000) * 1000);
    const cron = `${due.getUTCSeconds()} ${due.getUTCMinutes()} ${due.getUTCHours()} ${due.getUTCDate()} ${due.getUTCMonth() + 1} *`;
    for (let index = 0; index < count; index += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, count - index) }, (_, offset) =>
          call(servers[(index + offset) % 2]!, 'POST', '/schedules', {
            cron,
            inputs: { topic: `tick ${index + offset}` },
          }),
        ),
      );
    }
    if (Date.now() >= due.getTime()) throw new Error('the schedules were not all made before they fell due');

    const deadline = Date.now() + 120_000;
    let started: Listed[] = [];
    while (started.length < count && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 250));
      started = await scheduledExecutions(servers[0]!);
    }
    // Both processes have looked at every schedule since: whatever either started is listed now.
    await new Promise((done) => setTimeout(done, 2_500));
    started = await scheduledExecutions(servers[1]!);
    const perSchedule = new Map<string, number>();
    for (const execution of started) {
      const id = execution.meta!.schedule!.id;
      perSchedule.set(id, (perSchedule.get(id) ?? 0) + 1);
    }
    const lags = started.map((execution) => new Date(execution.created_at).getTime() - due.getTime());
    const slowest = Math.max(...lags);
    const once = [...perSchedule.values()].every((times) => times === 1) && perSchedule.size === count;
    return [
      {
        figure,
        metric: `${metric} (${count} schedules due at one second)`,
        unit: 'x',
        value: perSchedule.size === 0 ? null : started.length / count,
        baseline: null,
        ratio: null,
        target: '= 1',
        met: once,
        note: `${perSchedule.size} of ${count} started, ${started.length} executions`,
      },
      {
        figure,
        metric: 'due time to execution created',
        unit: 'ms',
        value: median(lags),
        range: { min: Math.min(...lags), max: slowest, rounds: lags.length },
        baseline: null,
        ratio: null,
        target: '-',
        met: null,
        note: 'schedules are looked at every second, so about half a second is the poll',
      },
    ];
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await model.stop();
    await database.drop();
  }
});
