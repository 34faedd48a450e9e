import { CrewdError } from '../../domain/errors.ts';

/** crewd's default for one tool call, which Python tools share. */
const defaultSeconds = 60;

/** The time limit of one Python tool call: `CREWD_PYTHON_TOOL_TIMEOUT` seconds (decimals allowed), else 60 s. */
export function pythonToolTimeoutMs(env: Readonly<Record<string, string | undefined>>): number {
  const text = env.CREWD_PYTHON_TOOL_TIMEOUT?.trim();
  if (text === undefined || text === '') return defaultSeconds * 1000;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new CrewdError(
      'CONFIG_INVALID',
      `CREWD_PYTHON_TOOL_TIMEOUT must be a positive number of seconds, not '${text.slice(0, 40)}'`,
    );
  }
  return Math.round(seconds * 1000);
}
