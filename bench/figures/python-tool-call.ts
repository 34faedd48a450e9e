// Figure 14: what crewd adds to one call of a crewAI project's Python tool, over the same function called through a
// bare pipe (one JSON line each way) to the same interpreter, in the same run; and the resident memory of the
// tool host crewd starts per crew.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pino from 'pino';
import { loadCrew } from '../../src/crew/load-crew.ts';
import { createToolBox } from '../../src/engine/tool-box.ts';
import { PythonToolSource } from '../../src/tools/python/python-tool-source.ts';
import { runFigure } from '../lib/figure-main.ts';
import { rssOf } from '../lib/proc-readings.ts';
import { alternateRounds } from '../lib/alternate-rounds.ts';
import { median, spread } from '../lib/stats.ts';

const figure = '14 Python tool call';
const target = '<= 2 ms';
const crewDir = join(import.meta.dirname, '../crews/python-tools');
const sourceRoot = join(crewDir, 'src');
const shim = join(import.meta.dirname, '../../python/crewai_shim');
const barePipe = join(import.meta.dirname, '../lib/bare-python-pipe.py');
const python = process.env.CREWD_PYTHON ?? 'python3';

/** The same function behind a bare pipe: a request line in, an answer line out. */
function startBarePipe(): { call: (text: string) => Promise<string>; close: () => void } {
  const child = spawn(python, [barePipe, sourceRoot, shim], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map<number, (result: string) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const answer = JSON.parse(line) as { id: number; result: string };
    waiting.get(answer.id)?.(answer.result);
    waiting.delete(answer.id);
  });
  let nextId = 0;
  return {
    call: (text) =>
      new Promise((resolve) => {
        nextId += 1;
        waiting.set(nextId, resolve);
        child.stdin.write(`${JSON.stringify({ id: nextId, input: { text } })}\n`);
      }),
    close: () => child.kill('SIGKILL'),
  };
}

/** The tool hosts this process started, by the script they run. */
function toolHostPids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return (
          parent === process.pid &&
          readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('crewd_tool_host.py')
        );
      } catch {
        return false;
      }
    });
}

runFigure({ figure, metric: 'crewd minus bare pipe, per call', target }, async ({ quick }) => {
  const crew = await loadCrew(crewDir, { warn: () => undefined, env: {} });
  const source = new PythonToolSource(crew, {
    crewDir,
    env: {
      PATH: process.env.PATH,
      ...(process.env.CREWD_PYTHON === undefined ? {} : { CREWD_PYTHON: python }),
    },
    timeoutMs: 60_000,
    logger: pino({ level: 'silent' }),
  });
  await source.open();
  const bare = startBarePipe();
  try {
    const tool = source.find('echo_text');
    if (tool === undefined) throw new Error('the Python tool did not load');
    const box = createToolBox([tool], { executionId: 'bench', taskId: 'bench', agent: 'bench' });
    const signal = new AbortController().signal;
    let nextId = 0;
    const viaCrewd = async (): Promise<void> => {
      nextId += 1;
      const text = await box.run(
        { id: `call_${nextId}`, name: 'echo_text', input: { text: 'Lisbon' } },
        signal,
      );
      if (text !== 'echo: Lisbon') throw new Error(`unexpected answer: ${text}`);
    };
    const direct = async (): Promise<void> => {
      const text = await bare.call('Lisbon');
      if (text !== 'echo: Lisbon') throw new Error(`unexpected answer: ${text}`);
    };

    // Calls alternate one by one, so noise from another process lands on both sides alike.
    const rounds = quick ? 3 : 15;
    const perRound = quick ? 50 : 200;
    const medians = await alternateRounds(viaCrewd, direct, { warmup: quick ? 50 : 300, rounds, perRound });
    const crewdMedians = medians.measured;
    const directMedians = medians.baseline;
    const overheads = crewdMedians.map((ms, round) => ms - directMedians[round]!);
    const overhead = spread(overheads.map((ms) => ms * 1000));
    const baselineUs = median(directMedians) * 1000;
    const hosts = toolHostPids();
    const rssMb = hosts.length === 1 ? rssOf(hosts[0]!) / 1024 / 1024 : null;
    return [
      {
        figure,
        metric: 'crewd minus bare pipe, per call',
        unit: 'µs',
        value: overhead.median,
        range: overhead,
        baseline: baselineUs,
        baselineLabel: 'the same function through a bare pipe to the same interpreter',
        ratio: (median(crewdMedians) * 1000) / baselineUs,
        target,
        met: overhead.median <= 2000,
        note:
          `crewd median ${(median(crewdMedians) * 1000).toFixed(0)} µs; ${rounds} rounds of ${perRound} calls; ` +
          `tool host RSS ${rssMb === null ? 'not found' : `${rssMb.toFixed(1)} MB`} per crew`,
      },
    ];
  } finally {
    bare.close();
    await source.close();
  }
});
