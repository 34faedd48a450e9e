import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

/**
 * An ext4 image of a few MiB on a loop device, mounted for one test. Unlike a tmpfs, ext4 can be made read-only
 * under files open for writing, as a real disk is when the kernel meets an error on it (`errors=remount-ro`).
 */
export interface Ext4Disk {
  readonly directory: string;
  /** Turns the disk read-only now, open files or not: every write on it fails with EROFS until `remountWritable`. */
  failReadOnly(): void;
  /** Unmounts (nothing may have a file open on it), repairs the file system with fsck, and mounts it again. */
  remountWritable(): void;
  /** Unmounts and deletes the image; safe to call more than once and after a failure half-way. */
  unmount(): void;
}

function run(command: string, args: readonly string[]): string {
  return execFileSync(command, args, { stdio: 'pipe' }).toString().trim();
}

function failureText(error: unknown): string {
  const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
  return stderr || (error as Error).message;
}

/** The kernel's switch for this mount that makes ext4 act as after an error it found itself. */
function errorTrigger(directory: string): string {
  return `/sys/fs/ext4/${basename(run('findmnt', ['-n', '-o', 'SOURCE', directory]))}/trigger_fs_error`;
}

/**
 * Mounts a fresh ext4 image of `sizeMiB` in a temp directory; a string says why it could not be (not root, no loop
 * devices, no mkfs.ext4, a kernel without `trigger_fs_error`…).
 */
export function mountExt4Disk(sizeMiB: number): Ext4Disk | string {
  const root = mkdtempSync(join(tmpdir(), 'crewd-ext4-disk-'));
  const image = join(root, 'disk.img');
  const directory = join(root, 'mounted');
  let mounted = false;

  function mount(): void {
    mkdirSync(directory, { recursive: true });
    run('mount', ['-o', 'loop,errors=remount-ro', image, directory]);
    mounted = true;
  }

  /** `lazily`: should something still hold the mount, detach it now and let it go once let go of. */
  function release(lazily: boolean): void {
    if (!mounted) return;
    // The loop device goes with the mount, unless something still holds the mount: then it goes lazily.
    const device = run('findmnt', ['-n', '-o', 'SOURCE', directory]);
    try {
      run('umount', [directory]);
    } catch (error) {
      if (!lazily) throw error;
      run('umount', ['-l', directory]);
      try {
        run('losetup', ['-d', device]);
      } catch {
        // Already detached, or detached by the kernel once the lazy unmount ends.
      }
    }
    mounted = false;
  }

  const disk: Ext4Disk = {
    directory,
    failReadOnly() {
      writeFileSync(errorTrigger(directory), 'crewd-test\n');
    },
    remountWritable() {
      // Not lazily: fsck must never repair a file system still in use.
      release(false);
      try {
        run('e2fsck', ['-fy', image]);
      } catch (error) {
        // 1 means errors were found and corrected, which is what a disk turned read-only by an error asks.
        if ((error as { status?: number }).status !== 1) throw error;
      }
      mount();
    },
    unmount() {
      try {
        release(true);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };

  try {
    run('truncate', ['-s', `${sizeMiB}M`, image]);
    run('mkfs.ext4', ['-q', image]);
    mount();
    if (!existsSync(errorTrigger(directory))) throw new Error('this kernel has no ext4 trigger_fs_error');
    return disk;
  } catch (error) {
    try {
      disk.unmount();
    } catch {
      // The reason below is what the caller needs.
    }
    return `cannot mount an ext4 image on a loop device here: ${failureText(error)}`;
  }
}
