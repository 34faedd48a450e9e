import { appendFileSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOrCreateDevToken } from '../../src/cli/dev-token.ts';
import type { RunningServer } from '../../src/main.ts';
import { workspaceRoot } from '../../src/workspace/execution-workspace.ts';
import { WorkspaceFiles } from '../../src/workspace/workspace-files.ts';
import { apiClient, crewsDir, startCrewd } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { userCrew } from '../support/user-crew.ts';

/** crewd's files hold webhook credentials, feedback and what agents wrote: only their owner may read them. */
let model: FakeOpenAIServer;
let crewd: RunningServer;
let base: string;
let database: string;
let umask: number;

const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);

beforeAll(async () => {
  // The most permissive umask: every mode below is crewd's own doing.
  umask = process.umask(0);
  model = await startFakeOpenAI();
  const crewDir = userCrew(join(crewsDir, 'file-tool-crew'));
  appendFileSync(join(crewDir, 'tasks.yaml'), '  output_file: reports/summary.md\n');
  base = mkdtempSync(join(tmpdir(), 'crewd-modes-'));
  database = join(base, '.crewd', 'crewd.db');
  await readOrCreateDevToken(database);
  crewd = await startCrewd({ crewDir, database, modelUrl: model.url });
});

afterAll(async () => {
  await crewd.close();
  await model.close();
  process.umask(umask);
});

describe('the files crewd creates, under umask 0', () => {
  it('are owner-only: the database and what lies beside it, the development token, the workspace', async () => {
    model.enqueue(
      {
        content: 'Keeping notes.',
        toolCalls: [
          {
            name: 'FileWriterTool',
            arguments: { filename: 'notes.md', directory: 'drafts/first', content: 'x' },
          },
        ],
      },
      { content: 'The summary.' },
    );
    const api = apiClient(crewd.url);
    const id = (await api.post('/kickoff', { inputs: { topic: 'tide pools' } })).body.kickoff_id as string;
    expect((await api.waitForState(id, ['SUCCESS', 'FAILED'])).body.state).toBe('SUCCESS');
    const workspace = join(workspaceRoot(database), id);

    const modes = {
      dataDirectory: modeOf(join(base, '.crewd')),
      database: modeOf(database),
      log: modeOf(`${database}-wal`),
      sharedMemory: modeOf(`${database}-shm`),
      processLocks: modeOf(`${database}-processes`),
      devToken: modeOf(join(base, '.crewd', 'dev-token')),
      workspaceRoot: modeOf(workspaceRoot(database)),
      workspace: modeOf(workspace),
      writtenDirectories: [modeOf(join(workspace, 'drafts')), modeOf(join(workspace, 'drafts', 'first'))],
      writtenFile: modeOf(join(workspace, 'drafts', 'first', 'notes.md')),
      outputDirectory: modeOf(join(workspace, 'reports')),
      outputFile: modeOf(join(workspace, 'reports', 'summary.md')),
    };

    expect(modes).toEqual({
      dataDirectory: '700',
      database: '600',
      log: '600',
      sharedMemory: '600',
      processLocks: '700',
      devToken: '600',
      workspaceRoot: '700',
      workspace: '700',
      writtenDirectories: ['700', '700'],
      writtenFile: '600',
      outputDirectory: '700',
      outputFile: '600',
    });
    const locks = readdirSync(`${database}-processes`);
    expect(locks.length).toBeGreaterThan(0);
    for (const lock of locks) expect(modeOf(join(`${database}-processes`, lock))).toBe('600');
  });

  it("are owner-only in PostgreSQL's workspace too, `./.crewd/workspace`, made on the first output file", async () => {
    const dataDirectory = join(mkdtempSync(join(tmpdir(), 'crewd-modes-pg-')), '.crewd');
    const files = WorkspaceFiles.underRoot(join(dataDirectory, 'workspace'));

    await files.save({
      executionId: 'kickoff-1',
      path: 'out/report.md',
      content: '# Report',
      createDirectory: true,
    });

    expect(
      [
        dataDirectory,
        join(dataDirectory, 'workspace'),
        join(dataDirectory, 'workspace', 'kickoff-1', 'out'),
      ].map(modeOf),
    ).toEqual(['700', '700', '700']);
    expect(modeOf(join(dataDirectory, 'workspace', 'kickoff-1', 'out', 'report.md'))).toBe('600');
  });
});
