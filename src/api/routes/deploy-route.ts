import { z } from 'zod';
import type { CrewDeployer } from '../../service/crew-version-source.ts';
import { callerOf } from '../bearer-auth.ts';
import { bearerSecurity } from './route-context.ts';
import type { PerRequest, ZodApp } from './route-context.ts';

/** A version's files: 16 MiB of them at most, with room for JSON's escapes. */
export const deployBodyLimitBytes = 24 * 1024 * 1024;

const relativePath = z
  .string()
  .min(1)
  .max(1000)
  .refine(
    (path) =>
      !path.startsWith('/') &&
      !path.includes('\\') &&
      path.split('/').every((part) => part !== '..' && part !== ''),
    'File paths are relative to the crew directory, /-separated, without ..',
  );

const deployBodySchema = z.object({
  files: z
    .record(relativePath, z.string())
    .refine((files) => Object.keys(files).length > 0, 'No files to deploy'),
});

const deployResponseSchema = z.object({
  version: z.number().int(),
  created: z.boolean().describe('false when the same files were a version already'),
  served: z.boolean(),
});

/**
 * `POST {base_url}/deploy`: the crew's files, from `crewd deploy`, become a version served to new kickoffs. Only
 * when the operator enabled deploying, and only with a deploy token: the crew's tools run in this server.
 */
export function registerDeployRoute(app: ZodApp, deployerOf: PerRequest<CrewDeployer>): void {
  app.post(
    '/deploy',
    {
      bodyLimit: deployBodyLimitBytes,
      config: { deploy: true },
      schema: {
        summary: "Deploy the crew's files as a new version (deploy tokens, when deploying is enabled)",
        security: bearerSecurity,
        body: deployBodySchema,
        response: { 200: deployResponseSchema },
      },
    },
    async (request) => {
      callerOf(request);
      const deployed = await deployerOf(request).deploy(request.body.files);
      return { version: deployed.version, created: deployed.created, served: true };
    },
  );
}
