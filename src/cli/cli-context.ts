/** What every command reads and writes, passed in from the entry point rather than taken from globals. */
export interface CliContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
}
