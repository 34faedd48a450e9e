import { fileURLToPath } from 'node:url';

/**
 * The benchmark's own crews: three plain tasks, the same three led by a manager that delegates each one, and a
 * sign-off that pauses after its first task.
 */
export const crewDirs = {
  threeTask: fileURLToPath(new URL('../crews/three-task', import.meta.url)),
  hierarchical: fileURLToPath(new URL('../crews/hierarchical', import.meta.url)),
  signOff: fileURLToPath(new URL('../crews/sign-off', import.meta.url)),
} as const;

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
