// Which part of crewd a profile sample belongs to, for the breakdown summarize-profile.ts prints: the innermost
// frame on the stack that names a part decides, so a library's time counts for the part of crewd that called it
// (undici under the model client, better-sqlite3 under the store) and Node's own frames count for their caller.

/** The parts, in the order the breakdown lists them. */
export const profileParts = [
  'store',
  'model client',
  'HTTP and SSE',
  'engine',
  'service',
  'webhooks',
  'metrics and logs',
  'garbage collector',
  'module loading',
  'other',
] as const;

export type ProfilePart = (typeof profileParts)[number];

const ownFolders: Readonly<Record<string, ProfilePart>> = {
  store: 'store',
  llm: 'model client',
  api: 'HTTP and SSE',
  engine: 'engine',
  crew: 'engine',
  tools: 'engine',
  service: 'service',
  webhooks: 'webhooks',
  observability: 'metrics and logs',
};

const packages: Readonly<Record<string, ProfilePart>> = {
  'better-sqlite3': 'store',
  pg: 'store',
  'pg-protocol': 'store',
  'pg-pool': 'store',
  undici: 'model client',
  '@ai-sdk/openai': 'model client',
  '@ai-sdk/provider-utils': 'model client',
  '@ai-sdk/provider': 'model client',
  fastify: 'HTTP and SSE',
  'find-my-way': 'HTTP and SSE',
  avvio: 'HTTP and SSE',
  'fast-json-stringify': 'HTTP and SSE',
  'prom-client': 'metrics and logs',
  pino: 'metrics and logs',
  'sonic-boom': 'metrics and logs',
};

/**
 * The part a frame names, or undefined when it names none (Node's streams and sockets, zod, anonymous natives):
 * then the frame below it on the stack decides.
 */
export function partOfFrame(functionName: string, path: string): ProfilePart | undefined {
  if (functionName === '(garbage collector)') return 'garbage collector';
  // The innermost package folder: a package's own dependencies are nested under its node_modules.
  const names = [...path.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)].map((match) => match[1]!);
  const name = names.at(-1);
  if (name !== undefined) return packages[name];
  // crewd's sources or build, also of another checkout than this one (a profile taken elsewhere).
  const own = /(?:^|\/)(?:src|dist)\/([^/]+)\//.exec(path);
  if (own !== null) return ownFolders[own[1]!] ?? 'other';
  if (path.startsWith('node:internal/deps/undici') || path.startsWith('wasm:')) return 'model client';
  if (/^node:_http_|^node:internal\/http/.test(path)) return 'HTTP and SSE';
  if (path.startsWith('node:internal/modules')) return 'module loading';
  return undefined;
}
