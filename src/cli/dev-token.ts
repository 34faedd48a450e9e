import { randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { dataDirectory } from '../workspace/execution-workspace.ts';
import { makeOwnerOnlyDirectory, ownerOnlyFileMode } from '../system/owner-only.ts';

export interface DevToken {
  readonly secret: string;
  /** The file that keeps it. */
  readonly file: string;
}

/**
 * The development token of `crewd serve --watch`: made once, kept in `dev-token` beside the database (readable by
 * its owner only), and the same at every start after, so a developer's clients keep working across restarts.
 */
export async function readOrCreateDevToken(database: string): Promise<DevToken> {
  const file = path.join(dataDirectory(database), 'dev-token');
  const kept = await readFile(file, 'utf8').then(
    (text) => text.trim(),
    (error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
      throw error;
    },
  );
  if (kept !== '') return { secret: kept, file };
  const secret = `crewd_dev_${randomBytes(32).toString('base64url')}`;
  await makeOwnerOnlyDirectory(path.dirname(file));
  await writeFile(file, `${secret}\n`, { mode: ownerOnlyFileMode, flag: 'wx' });
  // The umask narrows the mode given; this sets it exactly.
  await chmod(file, ownerOnlyFileMode);
  return { secret, file };
}
