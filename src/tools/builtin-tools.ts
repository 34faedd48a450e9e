import { staticToolSource } from './tool-source.ts';
import type { ToolSource } from './tool-source.ts';

/** The tools crews can name in `tools:` under crewAI's names. */
export function builtinToolSource(): ToolSource {
  return staticToolSource('built-in tools', []);
}
