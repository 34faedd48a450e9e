import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleCrew, exampleInputs, finished, spawnCrewd, tempDir, waitForOutput } from './crewd-command.ts';

describe('crewd serve on a terminal', { timeout: 120_000 }, () => {
  it('prints one readable line per execution event', async () => {
    // CREWD_EVENT_LINES=1 asks for the terminal's lines where stdout is a pipe, as it is here.
    const server = spawnCrewd(
      ['serve', exampleCrew, '--port', '0', '--database', join(tempDir(), 'crewd.db')],
      {
        env: { CREWD_EVENT_LINES: '1' },
      },
    );
    const exit = finished(server);
    try {
      const [, url, token] = await waitForOutput(
        server,
        /at (http:\/\/127\.0\.0\.1:\d+)\n[^\n]*\n {2}(\S+)\n/,
      );
      const response = await fetch(`${url}/kickoff`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ inputs: JSON.parse(exampleInputs) }),
      });
      const id = ((await response.json()) as { kickoff_id: string }).kickoff_id.slice(0, 8);

      const [lines] = await waitForOutput(
        server,
        new RegExp(
          `^\\d\\d:\\d\\d:\\d\\d ${id} started\\n(?:.*\\n)*?.* ${id} outline_task: waiting for review\\n`,
          'm',
        ),
      );

      expect(lines.split('\n').filter(Boolean)).toEqual([
        expect.stringMatching(new RegExp(`^\\d\\d:\\d\\d:\\d\\d ${id} started$`)),
        expect.stringMatching(
          new RegExp(` ${id} research_task: started by AI agents Senior Data Researcher$`),
        ),
        expect.stringMatching(new RegExp(` ${id} research_task: final answer$`)),
        expect.stringMatching(new RegExp(` ${id} research_task: done$`)),
        expect.stringMatching(new RegExp(` ${id} outline_task: started by `)),
        expect.stringMatching(new RegExp(` ${id} outline_task: final answer$`)),
        expect.stringMatching(new RegExp(` ${id} outline_task: done$`)),
        expect.stringMatching(new RegExp(` ${id} outline_task: waiting for review$`)),
      ]);
    } finally {
      server.kill('SIGTERM');
    }
    expect((await exit).code).toBe(0);
  });
});
