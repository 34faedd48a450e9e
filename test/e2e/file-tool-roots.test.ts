import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOrCreateDevToken, type DevToken } from '../../src/cli/dev-token.ts';
import type { RunningServer } from '../../src/main.ts';
import { createTokenService } from '../../src/service/token-service.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { apiClient, crewsDir, startCrewd } from '../support/crewd.ts';
import { startFakeOpenAI, type FakeOpenAIServer } from '../support/fake-openai-server.ts';
import { userCrew } from '../support/user-crew.ts';

/**
 * The attack of issue 23: a crew served from its own directory with the default database (`cd my-crew && crewd serve
 * .` keeps crewd's state in `my-crew/.crewd/`), whose agent has crewd's file tools, and two users. The second user's
 * task prompt steers the agent to crewd's state, the first user's files and the crew's secrets.
 */
let model: FakeOpenAIServer;
let crewd: RunningServer;
let store: Store;
let crewDir: string;
let devToken: DevToken;
let first: ReturnType<typeof apiClient>;
let second: ReturnType<typeof apiClient>;
const firstUsersSecret = `u1-secret-${randomBytes(8).toString('hex')}`;
const envSecret = `sk-env-${randomBytes(8).toString('hex')}`;
const outsideSecret = `outside-${randomBytes(8).toString('hex')}`;

beforeAll(async () => {
  model = await startFakeOpenAI();
  crewDir = userCrew(join(crewsDir, 'file-tool-crew'));
  writeFileSync(join(crewDir, '.env'), `PROVIDER_KEY=${envSecret}\n`);
  const database = join(crewDir, '.crewd', 'crewd.db');
  // What `serve --watch` keeps beside the database, and the organization token it serves with.
  devToken = await readOrCreateDevToken(database);
  crewd = await startCrewd({
    crewDir,
    database,
    modelUrl: model.url,
    env: { CREWD_ORG_TOKEN: devToken.secret },
  });
  store = await openSqliteStore(database);
  const tokens = createTokenService({ store, clock: () => new Date() });
  first = apiClient(crewd.url, (await tokens.create({ kind: 'user', userId: 'u1' })).secret);
  second = apiClient(crewd.url, (await tokens.create({ kind: 'user', userId: 'u2' })).secret);
});

afterAll(async () => {
  await crewd.close();
  await store.close();
  await model.close();
});

interface ToolMessage {
  readonly role: string;
  readonly content: string;
  readonly tool_call_id?: string;
}

describe("file tools of a crew served from its own directory, against a user who wants others' data", () => {
  it("refuse crewd's state, the other user's workspace, secrets and links out, and answer the crew's data", async () => {
    model.enqueue(
      {
        content: 'Keeping my findings.',
        toolCalls: [
          { name: 'FileWriterTool', arguments: { filename: 'report.md', content: firstUsersSecret } },
        ],
      },
      { content: 'Kept.' },
    );
    const kept = await first.post('/kickoff', { inputs: { topic: 'tide pools' } });
    const firstId = kept.body.kickoff_id as string;
    expect((await first.waitForState(firstId, ['SUCCESS', 'FAILED'])).body.state).toBe('SUCCESS');
    const firstUsersFile = join(crewDir, '.crewd', 'workspace', firstId, 'report.md');
    expect(readFileSync(firstUsersFile, 'utf8')).toBe(firstUsersSecret);
    // Links the crew might hold (or an operator made by mistake): into crewd's state, into u1's workspace, out.
    const outside = join(mkdtempSync(join(tmpdir(), 'crewd-outside-')), 'private.txt');
    writeFileSync(outside, outsideSecret);
    symlinkSync(join(crewDir, '.crewd'), join(crewDir, 'notes', 'state'));
    symlinkSync(join(crewDir, '.crewd', 'workspace', firstId), join(crewDir, 'notes', 'their-work'));
    symlinkSync(outside, join(crewDir, 'notes', 'private.txt'));

    const attempts: [string, Record<string, unknown>, string][] = [
      ['DirectoryReadTool', { directory: '.crewd' }, "Invalid directory: '.crewd' is crewd's own data"],
      ['DirectoryReadTool', { directory: '.crewd/workspace' }, "is crewd's own data"],
      ['FileReadTool', { file_path: '.crewd/dev-token' }, "'.crewd/dev-token' is crewd's own data"],
      ['FileReadTool', { file_path: `.crewd/workspace/${firstId}/report.md` }, "is crewd's own data"],
      ['FileReadTool', { file_path: '.crewd/crewd.db-wal' }, "is crewd's own data"],
      ['FileReadTool', { file_path: '.env' }, "'.env' is an environment file"],
      [
        'FileReadTool',
        { file_path: 'agents.yaml' },
        "'agents.yaml' is part of the crew's definition or code",
      ],
      ['FileReadTool', { file_path: 'notes/state/dev-token' }, "is crewd's own data"],
      ['FileReadTool', { file_path: 'notes/their-work/report.md' }, "is crewd's own data"],
      [
        'FileReadTool',
        { file_path: 'notes/private.txt' },
        'is a symbolic link that leads outside the crew directory',
      ],
      ['FileReadTool', { file_path: '/proc/self/environ' }, "'/proc/self/environ' is an absolute path"],
      ['FileReadTool', { file_path: '../../' }, 'is outside'],
    ];
    const calls = [
      ...attempts.map(([name, args]) => ({ name, arguments: args })),
      { name: 'DirectoryReadTool', arguments: { directory: '.' } },
      { name: 'FileReadTool', arguments: { file_path: 'notes/brief.txt' } },
    ];
    model.enqueue({ content: 'Looking around.', toolCalls: calls }, { content: 'Nothing of theirs.' });
    const requestsBefore = model.requests.length;

    const kickoff = await second.post('/kickoff', { inputs: { topic: 'tide pools' } });
    const secondId = kickoff.body.kickoff_id as string;
    const done = await second.waitForState(secondId, ['SUCCESS', 'FAILED']);

    expect(done.body.state).toBe('SUCCESS');
    const toolMessages = (model.requests.at(-1)!.body.messages as ToolMessage[]).filter(
      (message) => message.role === 'tool',
    );
    expect(toolMessages).toHaveLength(calls.length);
    attempts.forEach(([name, args, refusal], index) => {
      const answer = toolMessages[index]!.content;
      expect(answer, `${name} ${JSON.stringify(args)}`).toMatch(/^Error: /);
      expect(answer, `${name} ${JSON.stringify(args)}`).toContain(refusal);
    });
    const listing = toolMessages[attempts.length]!.content;
    expect(listing).toContain('- notes/brief.txt');
    expect(listing).not.toMatch(/\.crewd|dev-token|\.env|agents\.yaml|report\.md|private\.txt/);
    expect(toolMessages[attempts.length + 1]!.content).toBe('The brief: tide pools hold anemones.\n');

    // Nothing of u1's, of crewd's or of the crew's secrets reached u2's model, status or events.
    // The bodies: the inline key goes to the model server as the crew says, in the Authorization header.
    const seenByModel = JSON.stringify(model.requests.slice(requestsBefore).map((request) => request.body));
    const status = JSON.stringify(done.body);
    const events = JSON.stringify((await second.get(`/executions/${secondId}/events`)).body);
    for (const secret of [
      firstUsersSecret,
      devToken.secret,
      envSecret,
      outsideSecret,
      'sk-inline-key-written-in-agents-yaml',
    ]) {
      expect(seenByModel).not.toContain(secret);
      expect(status).not.toContain(secret);
      expect(events).not.toContain(secret);
    }
    expect(existsSync(firstUsersFile)).toBe(true);
  });
});
