import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CrewdError } from '../../domain/errors.ts';
import { selfOnlyPageHeaders } from '../self-only-page-headers.ts';
import type { ZodApp } from './route-context.ts';

/** Where `npm run build` puts the console: `dist/console` at the package root, seen from src/ and dist/ alike. */
export const defaultConsoleDirectory = join(import.meta.dirname, '../../../dist/console');

/**
 * The console's scripts, styles and the API are all this server's own; nothing inline, no other origin. The
 * token lives in the page, so it may not be framed and its address is never sent on as a referrer.
 */
export const consoleSecurityHeaders = selfOnlyPageHeaders({ manifest: true });

const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
};

interface ConsoleFile {
  readonly type: string;
  readonly body: Buffer;
  readonly gzipped: Buffer;
}

/** Reads the built console into memory once: a few files, served without touching the disk or taking paths. */
function loadFiles(directory: string): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const body = readFileSync(path);
        const type = contentTypes[extname(entry.name)] ?? 'application/octet-stream';
        files.set(relative(directory, path).split('\\').join('/'), { type, body, gzipped: gzipSync(body) });
      }
    }
  };
  if (existsSync(join(directory, 'index.html'))) walk(directory);
  return files;
}

/** `/console`: the web console, a single page served from the build with a strict Content-Security-Policy. */
export function registerConsoleFilesRoute(app: ZodApp, directory: string = defaultConsoleDirectory): void {
  const files = loadFiles(directory);

  const send = (request: FastifyRequest, reply: FastifyReply, name: string, cache: string): FastifyReply => {
    const file = files.get(name);
    if (file === undefined) {
      if (files.size === 0) {
        throw new CrewdError('DEPENDENCY_UNAVAILABLE', 'The console is not built; run npm run build');
      }
      throw new CrewdError('NOT_FOUND', 'No such file in the console');
    }
    const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    void reply
      .headers(consoleSecurityHeaders)
      .header('cache-control', cache)
      .header('vary', 'accept-encoding');
    void reply.type(file.type);
    if (gzip) void reply.header('content-encoding', 'gzip');
    return reply.send(gzip ? file.gzipped : file.body);
  };
  const options = { config: { public: true, rateLimit: false as const }, schema: { hide: true } };

  // The page itself changes with every build; its scripts and styles carry a content hash in their names.
  const page = (request: FastifyRequest, reply: FastifyReply): FastifyReply =>
    send(request, reply, 'index.html', 'no-cache');
  app.get('/console', options, page);
  app.get('/console/', options, page);
  app.get('/console/assets/:file', options, (request: FastifyRequest<{ Params: { file: string } }>, reply) =>
    send(request, reply, `assets/${request.params.file}`, 'public, max-age=31536000, immutable'),
  );
}
