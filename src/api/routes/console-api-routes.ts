import { registerConsoleFilesRoute } from './console-files-route.ts';
import { registerCrewDescriptionRoute } from './crew-description-route.ts';
import { registerExecutionDetailRoute } from './execution-detail-route.ts';
import type { RouteContext, ZodApp } from './route-context.ts';

/** The web console at `/console` and the routes it reads beyond the hosted service's: `/crew`, `/executions/{id}`. */
export function registerConsoleApiRoutes(app: ZodApp, context: RouteContext): void {
  registerCrewDescriptionRoute(app, context);
  registerExecutionDetailRoute(app, context);
  registerConsoleFilesRoute(app);
}
