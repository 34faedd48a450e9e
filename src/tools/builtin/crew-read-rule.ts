import { sep } from 'node:path';

/**
 * What file tools may read of a crew directory: its data and documents, nothing that can hold a secret or crewd's
 * state. Refused, by name and whatever the case (a case-insensitive disk opens `.ENV` as `.env`):
 * - `.crewd/`, where crewd keeps its database, workspaces and development token by default;
 * - environment files and every other hidden file or directory (`.git`, `.ssh`, `.npmrc`, `.aws`, …);
 * - key and credential files (`*.pem`, `*.key`, `id_rsa`, names with "secret", "credential" or "password");
 * - the crew's definition and code (`agents.yaml`, `tasks.yaml`, `crew.yaml`, JSONC crews, `crew.py` and every
 *   Python, TypeScript or JavaScript file), which is what runs, not what it works on, and holds `api_key`s, MCP
 *   headers and keys written inline.
 *
 * `relativePath` is relative to the crew directory; the reason reads after the path the model gave.
 */
export function crewFileRefusal(relativePath: string): string | undefined {
  const names = relativePath
    .split(sep)
    .filter((name) => name !== '' && name !== '.')
    .map((name) => name.normalize('NFC').toLowerCase());
  const last = names.at(-1);
  for (const name of names) {
    if (name === '.crewd') return crewdDataRefusal;
    if (isEnvFileName(name)) return 'is an environment file, which may hold secrets';
  }
  if (names.some((name) => name.startsWith('.'))) {
    return 'is a hidden file or lies in a hidden directory, which may hold credentials';
  }
  if (last === undefined) return undefined;
  if (isKeyFileName(last)) return 'is a key or credentials file';
  if (isCrewDefinitionName(last)) return "is part of the crew's definition or code, which can hold keys";
  return undefined;
}

/** Why crewd's own files are refused, wherever they lie. */
export const crewdDataRefusal = "is crewd's own data (its database, executions' workspaces, tokens)";

/** `.env`, `.env.local`, `.envrc` (direnv) and the like: the files that keep a project's keys. */
export function isEnvFileName(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === '.env' || lower.startsWith('.env.') || lower === '.envrc';
}

const keyExtensions = ['.pem', '.key', '.p12', '.pfx', '.jks', '.keystore', '.ppk', '.kdbx', '.asc', '.gpg'];
const keyNames = ['id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519'];
const keyWords = ['secret', 'credential', 'password', 'passwd'];

function isKeyFileName(name: string): boolean {
  return (
    keyExtensions.some((extension) => name.endsWith(extension)) ||
    keyNames.some((key) => name.startsWith(key)) ||
    keyWords.some((word) => name.includes(word))
  );
}

const definitionNames = new Set([
  'agents.yaml',
  'agents.yml',
  'tasks.yaml',
  'tasks.yml',
  'crew.yaml',
  'crew.yml',
]);
const codeExtensions = [
  '.jsonc',
  '.py',
  '.pyw',
  '.ts',
  '.mts',
  '.cts',
  '.js',
  '.mjs',
  '.cjs',
  '.tsx',
  '.jsx',
];

function isCrewDefinitionName(name: string): boolean {
  return definitionNames.has(name) || codeExtensions.some((extension) => name.endsWith(extension));
}
