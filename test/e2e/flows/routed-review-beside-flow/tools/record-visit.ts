import { appendFileSync } from 'node:fs';
import { defineTool } from 'crewd/tools';
import { z } from 'zod';

/** Appends one line per call to the file VISIT_LOG names: a side effect a crash test can count. */
export default defineTool({
  name: 'record_visit',
  description: 'Records a visit to a city in the visit log',
  inputSchema: z.object({ city: z.string().describe('The city visited') }),
  run: ({ city }, context) => {
    appendFileSync(process.env.VISIT_LOG ?? 'visits.log', `${context.executionId} ${city}\n`);
    return `Visit to ${city} recorded.`;
  },
});
