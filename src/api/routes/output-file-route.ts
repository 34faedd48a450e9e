import path from 'node:path';
import { z } from 'zod';
import { CrewdError } from '../../domain/errors.ts';
import type { OutputFileReader } from '../../engine/output-files.ts';
import { callerOf } from '../bearer-auth.ts';
import { savedFiles } from '../output-files-view.ts';
import { bearerSecurity } from './route-context.ts';
import type { ExecutionRouteContext, ZodApp } from './route-context.ts';

const fileParamsSchema = z.object({ id: z.string().min(1), '*': z.string() });

/**
 * `GET /executions/{id}/files/{path}`: a file a task's `output_file` saved, as listed on `/status`. The same
 * tokens see it as see the execution; any other path, listed by no task, answers 404.
 */
export function registerOutputFileRoute(
  app: ZodApp,
  context: ExecutionRouteContext & { readonly files: OutputFileReader },
): void {
  const { serviceOf, files } = context;
  app.get(
    '/executions/:id/files/*',
    {
      schema: {
        summary: "Download a file a task's output_file saved",
        security: bearerSecurity,
        params: fileParamsSchema,
      },
    },
    async (request, reply) => {
      const execution = await serviceOf(request).get(request.params.id, callerOf(request));
      const filePath = request.params['*'];
      const missing = new CrewdError('NOT_FOUND', `Execution ${execution.id} has no file '${filePath}'`);
      if (!savedFiles(execution).has(filePath)) throw missing;
      const opened = await files.open(execution.id, filePath);
      if (opened === undefined) throw missing;
      return reply
        .type(contentType(filePath))
        .header('content-length', opened.bytes)
        .header('content-disposition', `attachment; filename="${downloadName(filePath)}"`)
        .header('x-content-type-options', 'nosniff')
        .send(opened.stream);
    },
  );
}

/** Text types for what crews write; anything else downloads as bytes, never rendered by a browser. */
function contentType(filePath: string): string {
  const types: Record<string, string> = {
    '.md': 'text/markdown; charset=utf-8',
    '.txt': 'text/plain; charset=utf-8',
    '.json': 'application/json; charset=utf-8',
    '.csv': 'text/csv; charset=utf-8',
  };
  return types[path.extname(filePath).toLowerCase()] ?? 'application/octet-stream';
}

function downloadName(filePath: string): string {
  return path.basename(filePath).replace(/[^A-Za-z0-9._-]/g, '_');
}
