// `npm run bench`: measures what crewd adds over the cheapest honest way to get the same answers, figure by figure,
// each in a fresh child process, and prints the table. Flags: --quick (a short smoke run), --only 1,3 (some figures),
// --profile (crewd servers write CPU profiles to a temporary folder).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { unavailableRow, type FigureRow } from './lib/figure-row.ts';
import { formatTable } from './lib/format-table.ts';
import { spawnScript } from './lib/spawn-script.ts';

interface FigurePlan {
  readonly id: string;
  readonly name: string;
  readonly script: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly target: string;
}

const plans: readonly FigurePlan[] = [
  { id: '1', name: '1 engine overhead', script: 'engine-overhead.ts', target: '<= 2 ms' },
  {
    id: '2',
    name: '2 throughput, SQLite',
    script: 'service-throughput.ts',
    env: { BENCH_STORE: 'sqlite' },
    target: '>= 250/s and >= 0.5x',
  },
  {
    id: '2',
    name: '2 throughput, SQLite in memory',
    script: 'service-throughput.ts',
    env: { BENCH_STORE: 'sqlite-memory' },
    target: '-',
  },
  { id: '3', name: '3 GET /status under load', script: 'status-load.ts', target: '>= 0.35x, p99 <= 10 ms' },
  { id: '4', name: '4 memory, in flight', script: 'memory-in-flight.ts', target: '<= 200 KB' },
  { id: '4', name: '4 memory, paused', script: 'memory-paused.ts', target: '<= 20 MB' },
  { id: '5', name: '5 cold start', script: 'cold-start.ts', target: '<= 700 ms' },
  { id: '6', name: '6 webhooks', script: 'webhooks.ts', target: '-' },
  {
    id: '7',
    name: '7 throughput, PostgreSQL',
    script: 'service-throughput.ts',
    env: { BENCH_STORE: 'postgres' },
    target: '>= 250/s and >= 0.5x',
  },
  {
    id: '7',
    name: '7 throughput, PostgreSQL, 2 processes',
    script: 'service-throughput.ts',
    env: { BENCH_STORE: 'postgres', BENCH_PROCESSES: '2' },
    target: '-',
  },
  { id: '8', name: '8 MCP tool call, stdio', script: 'mcp-tool-call.ts', target: '<= 1 ms' },
  {
    id: '8',
    name: '8 MCP tool call, Streamable HTTP',
    script: 'mcp-tool-call.ts',
    env: { BENCH_MCP_TRANSPORT: 'http' },
    target: '<= 1 ms',
  },
  { id: '9', name: '9 console first paint', script: 'console-first-paint.ts', target: '<= 1000 ms' },
  {
    id: '10',
    name: '10 several processes, PostgreSQL',
    script: 'several-processes.ts',
    target: '<= 2 s; lease + scan; p99 <= 50 ms; burst <= 200 ms',
  },
  {
    id: '11',
    name: '11 reads with 1,000,000 stored, SQLite',
    script: 'large-store.ts',
    env: { BENCH_STORE: 'sqlite' },
    target: '<= 1.5x of 1,000 stored',
  },
  {
    id: '11',
    name: '11 reads with 1,000,000 stored, PostgreSQL',
    script: 'large-store.ts',
    env: { BENCH_STORE: 'postgres' },
    target: '<= 1.5x of 1,000 stored',
  },
  { id: '12', name: '12 MCP kickoff to result', script: 'mcp-kickoff.ts', target: '<= 1.2x' },
  { id: '14', name: '14 Python tool call', script: 'python-tool-call.ts', target: '<= 2 ms' },
  {
    id: '15',
    name: '15 schedules, 2 processes, PostgreSQL',
    script: 'schedules.ts',
    target: '= 1',
  },
  { id: '13', name: '13 A2A kickoff to result', script: 'a2a-kickoff.ts', target: '<= 1.2x' },
  { id: '16', name: '16 fair shares, SQLite', script: 'fair-share.ts', target: '<= 200 ms' },
  { id: '17', name: '17 flow overhead', script: 'flow-overhead.ts', target: '<= 1 ms per method' },
  { id: '18', name: '18 budget check', script: 'budget-check.ts', target: '<= 1.05x' },
  {
    id: '19',
    name: '19 100 crews in one server',
    script: 'many-crews-start.ts',
    target: '<= 3 s; <= 2 MB per crew',
  },
  {
    id: '20',
    name: '20 throughput, 1 crew of 100',
    script: 'many-crews-throughput.ts',
    target: '>= 0.9x (within noise)',
  },
];

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
  },
});
const only = values.only?.split(',').map((id) => id.trim());
const chosen = plans.filter((plan) => only === undefined || only.includes(plan.id));
const profileDir = values.profile ? mkdtempSync(join(tmpdir(), 'crewd-bench-profiles-')) : '';
const figureTimeoutMs = values.quick ? 120_000 : 300_000;

async function runPlan(plan: FigurePlan): Promise<FigureRow[]> {
  const script = spawnScript(fileURLToPath(new URL(`./figures/${plan.script}`, import.meta.url)), {
    env: { ...plan.env, BENCH_QUICK: values.quick ? '1' : '0', BENCH_PROFILE_DIR: profileDir },
  });
  try {
    const { rows } = await script.next<{ type: string; rows: FigureRow[] }>('rows', figureTimeoutMs);
    return rows;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return [unavailableRow(plan.name, '', plan.target, `not measured: ${reason}`)];
  } finally {
    await script.stop();
  }
}

const started = new Date();
const rows: FigureRow[] = [];
for (const plan of chosen) {
  const began = performance.now();
  process.stderr.write(`running ${plan.name}...`);
  rows.push(...(await runPlan(plan)));
  process.stderr.write(` ${((performance.now() - began) / 1000).toFixed(1)} s\n`);
}
const seconds = (Date.now() - started.getTime()) / 1000;

console.log(`\ncrewd benchmark, ${values.quick ? 'quick' : 'full'} run, ${seconds.toFixed(0)} s\n`);
console.log(formatTable(rows));

const report = {
  startedAt: started.toISOString(),
  kind: values.quick ? 'quick' : 'full',
  seconds,
  machine: {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryBytes: totalmem(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  },
  rows,
};
// Only a full run of every figure replaces the committed table; other runs go to a temporary file.
const complete = !values.quick && only === undefined;
const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
const out = complete
  ? join(resultsDir, 'latest.json')
  : join(mkdtempSync(join(tmpdir(), 'crewd-bench-')), 'results.json');
if (complete) mkdirSync(resultsDir, { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(`\nwrote ${out}${profileDir === '' ? '' : `\nCPU profiles of the crewd servers: ${profileDir}`}`);
