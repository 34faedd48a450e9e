import { appendFileSync } from 'node:fs';
import { defineTool } from 'crewd/tools';
import { z } from 'zod';

/** Appends a line to the file STOP_LOG names for each stop: a side effect a crash test counts. */
export default defineTool({
  name: 'log_stop',
  description: 'Logs a stop in a city',
  inputSchema: z.object({ city: z.string().describe('The city of the stop') }),
  run: ({ city }) => {
    appendFileSync(process.env.STOP_LOG ?? 'stops.log', `${city}\n`);
    return `Stop in ${city} logged.`;
  },
});
