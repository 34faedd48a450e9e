/** One step of a database schema. Applied once, in version order; a released migration never changes. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  /** One or more statements, run inside the migration's transaction. */
  readonly sql: string;
}
