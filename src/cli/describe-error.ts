import { CrewdError, isCrewdError, MissingInputsError } from '../domain/errors.ts';

/** What the failing command was working with, so a message about an unexpected error can still name it. */
export interface FailureContext {
  /** The database the command opened, as the user gave it. */
  readonly database?: string;
  /** The address a server tried to listen on. */
  readonly listen?: { readonly host: string; readonly port: number };
}

/**
 * One line for the terminal. CrewdError messages are written for people and safe to show; anything else may
 * carry SQL, stack frames or driver text, so it becomes a sentence built from what the command knows.
 */
export function describeError(error: unknown, context: FailureContext = {}): string {
  if (error instanceof MissingInputsError) {
    return `Missing required inputs: ${error.missingInputs.join(', ')}`;
  }
  if (isCrewdError(error)) return oneLine(error.message);
  const code = systemCode(error);
  if (code === 'EADDRINUSE' && context.listen !== undefined) {
    return `Port ${context.listen.port} on ${context.listen.host} is already in use; choose another with --port`;
  }
  if ((code === 'EACCES' || code === 'EADDRNOTAVAIL') && context.listen !== undefined) {
    return `Cannot listen on ${context.listen.host}:${context.listen.port} (${code})`;
  }
  if (isLookupOf(error, context.listen?.host)) {
    return `Cannot listen on ${context.listen!.host}: no such address (${code}); check --host or HOST`;
  }
  if (context.database !== undefined) {
    const reason = code === undefined ? '' : ` (${code})`;
    return `Cannot use the database ${displayDatabase(context.database)}${reason}`;
  }
  return 'An unexpected error stopped the command';
}

/** The error itself when its message is safe to show, else one whose message is `describeError`'s sentence. */
export function explainFailure(error: unknown, context: FailureContext): CrewdError {
  if (isCrewdError(error)) {
    // A store that cannot be reached does not say which one; the operator needs to know what they configured.
    if (error.code !== 'DEPENDENCY_UNAVAILABLE' || context.database === undefined) return error;
    const where = displayDatabase(context.database);
    return new CrewdError(error.code, `${error.message} (${where})`, { cause: error });
  }
  return new CrewdError('INTERNAL', describeError(error, context), { cause: error });
}

/** A database location without its password, fit for a terminal or a log. */
export function displayDatabase(database: string): string {
  if (!/^postgres(ql)?:\/\//.test(database)) return database;
  try {
    const url = new URL(database);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return 'postgres://…';
  }
}

/** A failed name lookup of the host the server was to listen on (the database's host fails as a store error). */
function isLookupOf(error: unknown, host: string | undefined): boolean {
  const { syscall, hostname } = (error ?? {}) as { syscall?: unknown; hostname?: unknown };
  return host !== undefined && syscall === 'getaddrinfo' && (hostname === undefined || hostname === host);
}

function systemCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code) ? code : undefined;
}

function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim();
}
