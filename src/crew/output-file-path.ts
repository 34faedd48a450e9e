import { z } from 'zod';

/**
 * crewAI's rules for `output_file`: a path inside the execution's workspace. `..` and shell characters are refused
 * and a leading `/` is dropped (crewAI strips it too), so an output file can never land outside the workspace.
 */
export function outputFilePath() {
  return z
    .string({ error: 'must be a file path (a string)' })
    .trim()
    .superRefine((value, context) => {
      const problem = outputFileProblem(value);
      if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
    })
    .transform((value) => value.replace(/^\/+/, ''))
    .nullish();
}

/** Why `value` cannot be an output file path, or undefined when it can. */
export function outputFileProblem(value: string): string | undefined {
  if (value.replace(/^\/+/, '') === '') return 'must name a file';
  if (value.includes('\0')) return 'must not contain a NUL character';
  if (value.split(/[\\/]/).includes('..')) return "must stay inside the execution's workspace (no '..')";
  if (/^[~$]/.test(value)) return "must be a path relative to the execution's workspace (no '~' or '$')";
  if (/[|><&;]/.test(value)) return 'must not contain shell characters (| > < & ;)';
  for (const name of Array.from(value.matchAll(/\{([^}]*)\}/g), (match) => match[1] ?? '')) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return `has an invalid placeholder {${name}}`;
  }
  if (value.endsWith('/')) return 'must name a file, not a directory';
  return undefined;
}
