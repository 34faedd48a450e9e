import { link, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBuiltinTool } from '../../../src/tools/builtin/index.ts';
import type { BuiltinToolOptions } from '../../../src/tools/builtin/index.ts';
import { crewdStatePaths, workspaceRoot } from '../../../src/workspace/execution-workspace.ts';
import { toolContext } from './tool-context.ts';

/**
 * A crew served from its own directory with the default database (`cd my-crew && crewd serve .`): crewd's state
 * lies inside the crew directory, beside the crew's data and its secrets.
 */
let base: string;
let crewDir: string;
let options: BuiltinToolOptions;
const own = 'kickoff-own';
const other = 'kickoff-other';

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'crewd-file-roots-'));
  crewDir = join(base, 'my-crew');
  const database = join(crewDir, '.crewd', 'crewd.db');
  await mkdir(join(crewDir, 'knowledge'), { recursive: true });
  await mkdir(join(crewDir, 'config'), { recursive: true });
  await mkdir(join(crewDir, '.git'), { recursive: true });
  await mkdir(join(crewDir, 'tools'), { recursive: true });
  await mkdir(join(workspaceRoot(database), other), { recursive: true });
  await mkdir(`${database}-processes`, { recursive: true });
  await writeFile(database, 'SQLite format 3 but text');
  await writeFile(`${database}-wal`, 'webhook credentials');
  await writeFile(join(crewDir, '.crewd', 'dev-token'), 'crewd_dev_secret\n');
  await writeFile(join(workspaceRoot(database), other, 'secret.md'), "the other user's secret\n");
  await writeFile(join(workspaceRoot(database), other, 'report.md'), "the other user's report\n");
  await writeFile(join(crewDir, 'knowledge', 'facts.md'), '# Facts\n');
  await writeFile(join(crewDir, 'README.md'), '# My crew\n');
  await writeFile(join(crewDir, '.env'), 'OPENAI_API_KEY=sk-env\n');
  await writeFile(join(crewDir, '.envrc'), 'export OPENAI_API_KEY=sk-envrc\n');
  await writeFile(join(crewDir, '.git', 'config'), '[remote] url = https://user:pass@example.com\n');
  await writeFile(join(crewDir, 'config', 'agents.yaml'), 'writer:\n  llm: { api_key: sk-inline }\n');
  await writeFile(join(crewDir, 'crew.py'), 'API_KEY = "sk-python"\n');
  await writeFile(join(crewDir, 'tools', 'lookup.ts'), "const key = 'sk-tool';\n");
  await writeFile(join(crewDir, 'service.pem'), '-----BEGIN PRIVATE KEY-----\n');
  await writeFile(join(crewDir, 'id_ed25519'), 'private key\n');
  await writeFile(join(crewDir, 'db-password.txt'), 'hunter2\n');
  options = {
    env: {},
    crewDir,
    workspaceRoot: workspaceRoot(database),
    crewdState: crewdStatePaths(database),
    allowPrivateTargets: false,
  };
});
afterEach(() => rm(base, { recursive: true, force: true }));

const read = (file_path: string) =>
  createBuiltinTool('FileReadTool', options).run({ file_path }, toolContext(own));
const write = (filename: string, content: string) =>
  createBuiltinTool('FileWriterTool', options).run({ filename, content }, toolContext(own));
const list = (directory: string) =>
  createBuiltinTool('DirectoryReadTool', options).run({ directory }, toolContext(own));

describe("file tools in a crew directory that holds crewd's own state", () => {
  it("read the crew's data and documents, and the execution's own workspace", async () => {
    await write('draft.md', '# Draft\n');

    expect(await read('knowledge/facts.md')).toBe('# Facts\n');
    expect(await read('README.md')).toBe('# My crew\n');
    expect(await read('draft.md')).toBe('# Draft\n');
  });

  it.each([
    ['.crewd/dev-token', "is crewd's own data"],
    ['.crewd/crewd.db', "is crewd's own data"],
    ['.crewd/crewd.db-wal', "is crewd's own data"],
    [`.crewd/workspace/${other}/secret.md`, "is crewd's own data"],
    [`.crewd/workspace/${own}/draft.md`, "is crewd's own data"],
    ['.CREWD/dev-token', "is crewd's own data"],
    ['knowledge/../.crewd/dev-token', "is crewd's own data"],
    ['.env', 'is an environment file'],
    ['.ENV', 'is an environment file'],
    ['.envrc', 'is an environment file'],
    ['.git/config', 'is a hidden file or lies in a hidden directory'],
    ['config/agents.yaml', "is part of the crew's definition or code"],
    ['config/AGENTS.YAML', "is part of the crew's definition or code"],
    ['crew.py', "is part of the crew's definition or code"],
    ['tools/lookup.ts', "is part of the crew's definition or code"],
    ['service.pem', 'is a key or credentials file'],
    ['id_ed25519', 'is a key or credentials file'],
    ['db-password.txt', 'is a key or credentials file'],
  ])('FileReadTool refuses %s: it %s', async (path, reason) => {
    await write('draft.md', '# Draft\n');

    await expect(read(path)).rejects.toThrow(`Invalid file path: '${path}' ${reason}`);
  });

  it('refuses a name whether the file exists or not, so a refusal tells nothing of what is there', async () => {
    await expect(read('.crewd/workspace/no-such-execution/secret.md')).rejects.toThrow("is crewd's own data");
    await expect(read('.env.production')).rejects.toThrow('is an environment file');
  });

  it('refuses absolute paths and ..: /proc/self/environ, the database by its full path', async () => {
    await expect(read('/proc/self/environ')).rejects.toThrow("'/proc/self/environ' is an absolute path");
    await expect(read(join(crewDir, '.crewd', 'dev-token'))).rejects.toThrow('is an absolute path');
    await expect(read('../my-crew/.crewd/dev-token')).rejects.toThrow('is outside');
  });

  it("follows symbolic links and refuses where they lead: crewd's state, another workspace, secrets, outside", async () => {
    await symlink(join(crewDir, '.crewd'), join(crewDir, 'knowledge', 'state'));
    await symlink(join(crewDir, '.crewd', 'dev-token'), join(crewDir, 'knowledge', 'token.txt'));
    await symlink(join(options.workspaceRoot, other), join(crewDir, 'knowledge', 'theirs'));
    await symlink(join(crewDir, '.env'), join(crewDir, 'knowledge', 'settings.txt'));
    await symlink('/proc/self/environ', join(crewDir, 'knowledge', 'environ.txt'));

    await expect(read('knowledge/state/dev-token')).rejects.toThrow("is crewd's own data");
    await expect(read('knowledge/token.txt')).rejects.toThrow("is crewd's own data");
    await expect(read('knowledge/theirs/report.md')).rejects.toThrow("is crewd's own data");
    await expect(read('knowledge/settings.txt')).rejects.toThrow('is an environment file');
    await expect(read('knowledge/environ.txt')).rejects.toThrow(/leads outside the crew directory|not found/);
  });

  it("refuses crewd's files by identity where they carry no telling name", async () => {
    // The operator put the database in the crew directory under a plain name (`--database ./state/crew.db`).
    const database = join(crewDir, 'state', 'crew.db');
    await mkdir(join(workspaceRoot(database), other), { recursive: true });
    await writeFile(database, 'database');
    await writeFile(join(workspaceRoot(database), other, 'notes.txt'), 'theirs');
    await link(database, join(crewDir, 'knowledge', 'copy.txt'));
    options = { ...options, workspaceRoot: workspaceRoot(database), crewdState: crewdStatePaths(database) };

    await expect(read('state/crew.db')).rejects.toThrow("is crewd's own data");
    await expect(read(`state/workspace/${other}/notes.txt`)).rejects.toThrow("is crewd's own data");
    await expect(read('knowledge/copy.txt')).rejects.toThrow("is crewd's own data");
    expect(await list('.')).not.toMatch(/state\/|copy\.txt/);
  });

  it('DirectoryReadTool lists nothing FileReadTool refuses', async () => {
    await write('draft.md', '# Draft\n');
    await symlink(join(crewDir, '.crewd', 'dev-token'), join(crewDir, 'knowledge', 'token.txt'));
    await symlink(join(crewDir, '.env'), join(crewDir, 'knowledge', 'settings.txt'));

    const listing = await list('.');

    expect(listing).toBe('File paths: \n- README.md\n- draft.md\n- knowledge/facts.md');
    for (const line of listing.split('\n').slice(1)) {
      await expect(read(line.slice(2))).resolves.toBeTypeOf('string');
    }
    await expect(list('.crewd')).rejects.toThrow("Invalid directory: '.crewd' is crewd's own data");
    await expect(list('.crewd/workspace')).rejects.toThrow("is crewd's own data");
    await expect(list('.git')).rejects.toThrow('is a hidden file or lies in a hidden directory');
  });
});
