/** What the built-in tools need from the process that runs them. */
export interface BuiltinToolOptions {
  /** The process environment: `SERPER_API_KEY`, `SERPER_BASE_URL`, cookie values named by `ScrapeWebsiteTool`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The crew's directory: file tools read its data and documents (see `crewFileRefusal`). */
  readonly crewDir: string;
  /** Each execution gets `join(workspaceRoot, executionId)`, created on first write; file tools read and write there. */
  readonly workspaceRoot: string;
  /**
   * crewd's own files and directories (the database and what lies beside it, the workspace root, the development
   * token): file tools never read or list them, wherever they lie, for instance inside the crew directory.
   */
  readonly crewdState: readonly string[];
  /** Lets network tools reach loopback and private addresses (`CREWD_TOOLS_ALLOW_PRIVATE=1`). */
  readonly allowPrivateTargets: boolean;
  /** Longest one request may take, connecting and reading included; 15 s when absent. */
  readonly fetchTimeoutMs?: number;
  /** Most bytes read from one answer; 5 MiB when absent. Pages are cut there, search answers refused. */
  readonly fetchMaxBytes?: number;
  /** Most bytes `FileReadTool` reads of one file; 1 MiB when absent. */
  readonly fileMaxBytes?: number;
}

export const defaultFetchTimeoutMs = 15_000;
export const defaultFetchMaxBytes = 5 * 1024 * 1024;
export const defaultFileMaxBytes = 1024 * 1024;
