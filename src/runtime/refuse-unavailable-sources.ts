import { CrewdError } from '../domain/errors.ts';
import { sourceName, type ToolSourceStatus } from '../tools/tool-source.ts';

/**
 * Refuses to start a crew whose tool sources are down at start (an MCP server that cannot be reached, or whose
 * `${VAR}` is not set), unless the user allowed it: then each is named in a warning and the crew starts without it.
 * A crew must not quietly run without the tools it was written with.
 */
export function refuseUnavailableSources(
  down: readonly ToolSourceStatus[],
  allowPartial: boolean,
  warn: (message: string) => void,
): void {
  if (down.length === 0) return;
  if (allowPartial) {
    for (const source of down) {
      warn(
        `starting without ${sourceName(source)}, which cannot be used: ${reasonOf(source)}; its tools fail until it ` +
          'can be reached, and crewd keeps trying to reach it',
      );
    }
    return;
  }
  const named = down.map((source) => `${sourceName(source)} cannot be used: ${reasonOf(source)}`).join('; ');
  const [its, it] = down.length === 1 ? ['its', 'it'] : ['their', 'them'];
  throw new CrewdError(
    'CREW_INVALID',
    `${named}. crewd does not start without ${its} tools: make ${it} reachable, or pass --allow-partial to start without ${it}`,
  );
}

function reasonOf(source: ToolSourceStatus): string {
  return source.reason ?? 'not connected';
}
