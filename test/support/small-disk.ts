import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A tmpfs of a few MiB mounted for one test, to fill up or make read-only under crewd. */
export interface SmallDisk {
  readonly directory: string;
  /** Writes a file until the disk has no space left. */
  fill(): void;
  /** Deletes what `fill` wrote. */
  free(): void;
  /** Remounts read-only (no file on it may be open for writing) or writable again. */
  readOnly(on: boolean): void;
  unmount(): void;
}

/** Mounts a tmpfs of `sizeMiB`; a string says why it could not be (not root, no mount in a container…). */
export function mountSmallDisk(sizeMiB: number): SmallDisk | string {
  const directory = mkdtempSync(join(tmpdir(), 'crewd-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m`, 'tmpfs', directory], { stdio: 'pipe' });
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return `cannot mount a tmpfs here: ${stderr || (error as Error).message}`;
  }
  const filler = join(directory, 'filler');
  return {
    directory,
    fill() {
      const fd = openSync(filler, 'a');
      const chunk = Buffer.alloc(64 * 1024, 1);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    readOnly(on) {
      execFileSync('mount', ['-o', `remount,${on ? 'ro' : 'rw'}`, directory], { stdio: 'pipe' });
    },
    unmount() {
      execFileSync('umount', ['-l', directory], { stdio: 'pipe' });
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
