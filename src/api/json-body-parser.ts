import type { FastifyInstance } from 'fastify';
import { CrewdError } from '../domain/errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request body as text, as it was sent; undefined without a body. */
    rawBody: string | undefined;
  }
}

/**
 * Every body is read as JSON whatever its content type (clients such as `curl -d` send form types), and an empty
 * body counts as none, so a bodiless POST such as `/cancel/{id}` works with a JSON content type.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.decorateRequest('rawBody', undefined);
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    // Signed requests (triggers) are verified over the bytes as sent, not over the parsed value.
    request.rawBody = text;
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    void parseJson(request, text, (error, value) => {
      if (error !== null) {
        done(isValidJson(text) ? prototypeKeyError() : error, undefined);
        return;
      }
      done(nestedDeeperThan(value, maxJsonDepth) ? tooDeepError() : null, value);
    });
  });
}

/** Deeper JSON than any crew input needs; much deeper would overflow the stack when the body is written out. */
export const maxJsonDepth = 100;

/** Whether objects and arrays in `value` nest more than `limit` levels deep; iterative, so any depth is safe. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return false;
}

function tooDeepError(): CrewdError {
  return new CrewdError(
    'VALIDATION_ERROR',
    `Request body nests objects and arrays more than ${maxJsonDepth} deep`,
  );
}

/**
 * The parser refuses `__proto__` and `constructor.prototype` keys, which could poison objects built from them, with
 * the same error as broken JSON: text that plain JSON.parse reads was refused for such a key.
 */
function isValidJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function prototypeKeyError(): CrewdError {
  return new CrewdError(
    'VALIDATION_ERROR',
    'Request body may not use the keys __proto__ or constructor.prototype',
  );
}
