import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { describeError } from './describe-error.ts';

/** The error Node gives when a server cannot listen on `host`. */
function listenError(host: string): Promise<Error> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', resolve);
    server.listen(0, host, () => server.close(() => resolve(new Error('listened'))));
  });
}

describe('describeError', () => {
  it('blames a host that does not resolve on HOST, not on the database', async () => {
    const error = await listenError('999.1.1.1');
    const context = { database: '/tmp/crewd.db', listen: { host: '999.1.1.1', port: 8000 } };

    // ENOTFOUND, or EAI_AGAIN where no name server answers at all.
    expect(describeError(error, context)).toMatch(
      /^Cannot listen on 999\.1\.1\.1: no such address \((ENOTFOUND|EAI_AGAIN)\); check --host or HOST$/,
    );
  });

  it('still names the database for other unexpected failures, without its password', () => {
    const error = Object.assign(new Error('boom'), { code: 'EIO' });
    const context = {
      database: 'postgres://crewd:secret@db/crewd',
      listen: { host: '127.0.0.1', port: 8000 },
    };

    expect(describeError(error, context)).toBe('Cannot use the database postgres://crewd:***@db/crewd (EIO)');
  });
});
