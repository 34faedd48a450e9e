// Figure 12: kickoff to result through crewd's MCP server (one `kickoff` tool call that waits), beside the same
// crew over the HTTP interface on the same server (POST /kickoff, follow the event stream to the end, GET /status),
// calls alternating in the same run.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { crewDirs } from '../lib/crew-dirs.ts';
import { crewdClient } from '../lib/crewd-client.ts';
import { benchToken, profileArgs, startCrewdServer } from '../lib/crewd-server.ts';
import { startFakeModel } from '../lib/fake-model.ts';
import { runFigure } from '../lib/figure-main.ts';
import { alternateRounds } from '../lib/alternate-rounds.ts';
import { median, spread } from '../lib/stats.ts';

const figure = '12 MCP kickoff to result';
const target = '<= 1.2x';

runFigure(
  { figure, metric: 'MCP over HTTP interface, per execution', target },
  async ({ quick, profileDir }) => {
    const model = await startFakeModel();
    try {
      const server = await startCrewdServer({
        crewDir: crewDirs.threeTask,
        modelUrl: model.url,
        nodeArgs: profileArgs(profileDir, 'mcp-kickoff'),
      });
      const http = crewdClient(server.url, 8);
      const mcp = new Client({ name: 'bench', version: '1.0.0' });
      try {
        await mcp.connect(
          new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${benchToken}` } },
          }),
        );
        let topics = 0;
        const viaMcp = async (): Promise<void> => {
          topics += 1;
          const result = await mcp.callTool({
            name: 'kickoff',
            arguments: { topic: `topic ${topics}`, wait_seconds: 300 },
          });
          const state = (result.structuredContent as { state?: string } | undefined)?.state;
          if (result.isError === true || state !== 'SUCCESS')
            throw new Error(`the MCP kickoff ended ${state}`);
        };
        const viaHttp = async (): Promise<void> => {
          topics += 1;
          const id = await http.kickoff({ inputs: { topic: `topic ${topics}` } });
          const state = await http.waitForEnd(id);
          if (state !== 'SUCCESS') throw new Error(`the HTTP kickoff ended ${state}`);
          const { body } = await http.get(`/status/${id}`);
          if ((body as { result?: unknown }).result === null)
            throw new Error('the HTTP status had no result');
        };

        // One execution at a time, the two ways alternating, so noise from another process lands on both alike.
        const rounds = quick ? 3 : 10;
        const perRound = quick ? 20 : 40;
        const medians = await alternateRounds(viaMcp, viaHttp, { warmup: quick ? 5 : 30, rounds, perRound });
        const mcpMedians = medians.measured;
        const httpMedians = medians.baseline;
        const ratios = mcpMedians.map((ms, round) => ms / httpMedians[round]!);
        const ratio = spread(ratios);
        const mcpMs = median(mcpMedians);
        const httpMs = median(httpMedians);
        return [
          {
            figure,
            metric: 'MCP kickoff tool call, kickoff to result',
            unit: 'ms',
            value: mcpMs,
            range: spread(mcpMedians),
            baseline: httpMs,
            baselineLabel: 'POST /kickoff, event stream to the end, GET /status on the same server',
            ratio: ratio.median,
            target,
            met: ratio.median <= 1.2,
            note: `three-task crew, fake model; ${rounds} rounds of ${perRound} executions each way, one at a time`,
          },
        ];
      } finally {
        await mcp.close();
        await http.close();
        await server.stop();
      }
    } finally {
      await model.stop();
    }
  },
);
