import { readFileSync } from 'node:fs';

/** Resident set size of another process in bytes, from /proc (Linux). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (match === null) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

/** Samples `read` every `everyMs` for `forMs` and returns every sample. */
export async function sampleFor(read: () => number, forMs: number, everyMs = 100): Promise<number[]> {
  const samples: number[] = [];
  const end = performance.now() + forMs;
  while (performance.now() < end) {
    samples.push(read());
    await new Promise((done) => setTimeout(done, everyMs));
  }
  return samples;
}

/**
 * CPU time a process has used so far (user plus system, every thread), in milliseconds, from /proc (Linux). The
 * kernel counts it in clock ticks, 100 a second on every Linux this runs on.
 */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name in parentheses may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticksPerSecond = 100;
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}
