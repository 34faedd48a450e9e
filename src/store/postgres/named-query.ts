import type { QueryConfig } from 'pg';

/** SQL written with `:name` placeholders, compiled once to pg's `$1…` and run as a named prepared statement. */
export interface NamedQuery {
  /** The prepared statement's name: unique per SQL text. */
  readonly name: string;
  readonly text: string;
  /** Placeholder names in `$n` order. */
  readonly parameters: readonly string[];
}

/** Compiles `:name` placeholders; `::type` casts are left alone. */
export function namedQuery(name: string, sql: string): NamedQuery {
  const parameters: string[] = [];
  const text = sql.replace(/(?<![:\w]):([a-z_][a-z0-9_]*)/gi, (_match, parameter: string) => {
    const known = parameters.indexOf(parameter);
    return `$${known === -1 ? parameters.push(parameter) : known + 1}`;
  });
  return { name: `crewd_${name}`, text, parameters };
}

export function bindQuery(query: NamedQuery, values: Readonly<Record<string, unknown>>): QueryConfig {
  return {
    name: query.name,
    text: query.text,
    values: query.parameters.map((parameter) => {
      if (!(parameter in values)) throw new Error(`No value for :${parameter} in ${query.name}`);
      return values[parameter];
    }),
  };
}
