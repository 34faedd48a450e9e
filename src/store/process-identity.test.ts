import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { endedOnThisHost, newProcessId } from './process-identity.ts';

describe('process identity', () => {
  it('names this host and process, differently at every start', () => {
    const name = newProcessId();
    expect(name.startsWith(`${hostname()}/${process.pid}/`)).toBe(true);
    expect(newProcessId()).not.toBe(name);
  });

  it('tells a process on this host that was killed from one that runs', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const name = `${hostname()}/${child.pid}/child`;
    const self = newProcessId();
    expect(endedOnThisHost(name, self)).toBe(false);

    child.kill('SIGKILL');
    await once(child, 'exit');

    expect(endedOnThisHost(name, self)).toBe(true);
  });

  it('takes a previous start under this process id for ended, and leaves other hosts and itself alone', () => {
    const self = newProcessId();
    expect(endedOnThisHost(self, self)).toBe(false);
    expect(endedOnThisHost(`${hostname()}/${process.pid}/an-earlier-start`, self)).toBe(true);
    expect(endedOnThisHost(`another-host.example/1/x`, self)).toBe(false);
    expect(endedOnThisHost('a-name-without-parts', self)).toBe(false);
  });
});
