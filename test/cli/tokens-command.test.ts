import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/open-store.ts';
import { anyLogEntry, newExecution } from '../store/store-fixtures.ts';
import { runCrewd, tempDir } from './crewd-command.ts';

describe('crewd tokens', () => {
  it('creates, lists and revokes tokens without ever listing a secret', async () => {
    const database = join(tempDir(), 'tokens.db');

    const org = await runCrewd(['tokens', 'create', '--org', '--name', 'ci', '--database', database]);
    const user = await runCrewd(['tokens', 'create', '--user', 'alice', '--database', database]);
    expect(org.code).toBe(0);
    expect(user.code).toBe(0);
    const orgSecret = org.stdout.trimEnd().split('\n').at(-1)!;
    const userSecret = user.stdout.trimEnd().split('\n').at(-1)!;
    expect(orgSecret).toMatch(/^\S{32,}$/);
    expect(userSecret).toMatch(/^\S{32,}$/);

    const listed = await runCrewd(['tokens', 'list', '--database', database]);
    expect(listed.code).toBe(0);
    const [header, ...rows] = listed.stdout.trimEnd().split('\n');
    expect(header).toMatch(
      /^ID\s+KIND\s+USER\s+NAME\s+CREWS\s+DAILY BUDGET\s+SPENT \d{4}-\d\d-\d\d\s+CREATED\s+REVOKED$/,
    );
    expect(rows).toHaveLength(2);
    expect(rows.find((row) => /\borg\b/.test(row))).toMatch(/\bci\b.*\s-$/);
    expect(rows.find((row) => /\buser\b/.test(row))).toMatch(/\balice\b/);
    expect(listed.stdout).not.toContain(orgSecret);
    expect(listed.stdout).not.toContain(userSecret);

    const orgId = rows.find((row) => /\borg\b/.test(row))!.split(/\s+/)[0]!;
    const revoked = await runCrewd(['tokens', 'revoke', orgId, '--database', database]);
    expect(revoked.code).toBe(0);
    const after = await runCrewd(['tokens', 'list', '--database', database]);
    expect(after.stdout.split('\n').find((row) => row.startsWith(orgId))).toMatch(/\d{4}-\d\d-\d\dT\S+$/);
  });

  it('fails with one line when the token to revoke does not exist', async () => {
    const database = join(tempDir(), 'tokens.db');

    const result = await runCrewd(['tokens', 'revoke', 'tok_unknown', '--database', database]);

    expect(result.code).toBe(1);
    expect(result.stderr).toBe('crewd: No token has the id tok_unknown\n');
  });
});

describe('crewd tokens create --crews', () => {
  it('stores the crews a token is limited to, and lists them', async () => {
    const database = join(tempDir(), 'tokens.db');

    const limited = await runCrewd([
      'tokens',
      'create',
      '--user',
      'dana',
      '--crews',
      'notes, briefs',
      '--database',
      database,
    ]);
    expect(limited.code).toBe(0);
    expect(limited.stdout).toMatch(/for the crews notes, briefs\./);
    await runCrewd(['tokens', 'create', '--org', '--database', database]);
    const wrong = await runCrewd([
      'tokens',
      'create',
      '--org',
      '--crews',
      'Not A Name',
      '--database',
      database,
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^crewd: 'Not A Name' is not a crew name/);

    const rows = (await runCrewd(['tokens', 'list', '--database', database])).stdout.trimEnd().split('\n');
    expect(rows.find((row) => /\bdana\b/.test(row))).toMatch(/\bnotes,briefs\b/);
    expect(rows.find((row) => /\borg\b/.test(row))).toMatch(/\s\*\s/);
  });
});

describe('crewd tokens create --daily-budget-tokens / --daily-budget-usd', () => {
  it("keeps the token's daily budget", async () => {
    const database = join(tempDir(), 'tokens.db');

    const created = await runCrewd([
      'tokens',
      'create',
      '--user',
      'erin',
      '--daily-budget-tokens',
      '50000',
      '--daily-budget-usd',
      '2.5',
      '--database',
      database,
    ]);

    expect(created.code).toBe(0);
    const store = await openStore(database);
    try {
      const [token] = await store.listTokens();
      expect(token?.dailyBudget).toEqual({ tokens: 50000, costUsd: 2.5 });
    } finally {
      await store.close();
    }
  });

  it.each([
    [['--daily-budget-tokens', '-5'], 'A daily budget of tokens must be a whole number above 0'],
    [['--daily-budget-tokens', '1.5'], 'A daily budget of tokens must be a whole number above 0'],
    [['--daily-budget-usd', 'lots'], '--daily-budget-usd must be a number'],
    [['--daily-budget-usd', '0'], 'A daily budget in dollars must be a number above 0'],
  ])('refuses %j with one line', async (flags, message) => {
    const database = join(tempDir(), 'tokens.db');

    const result = await runCrewd(['tokens', 'create', '--user', 'erin', ...flags, '--database', database]);

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`crewd: ${message}\n`);
  });
});

describe('crewd tokens list', () => {
  it("shows each token's daily budget and what its executions spent today (UTC)", async () => {
    const database = join(tempDir(), 'tokens.db');
    await runCrewd([
      'tokens',
      'create',
      '--user',
      'erin',
      '--daily-budget-tokens',
      '50000',
      '--daily-budget-usd',
      '2.5',
      '--database',
      database,
    ]);
    await runCrewd(['tokens', 'create', '--user', 'finn', '--database', database]);
    // Model calls of erin's execution at noon yesterday, today and tomorrow, each of a size of its own: whichever
    // day the command counts (today, or tomorrow should midnight pass meanwhile), its spend names it.
    const spendByDay = new Map<string, string>();
    const store = await openStore(database);
    try {
      const erin = (await store.listTokens()).find((token) => token.userId === 'erin')!;
      const { execution } = await store.createExecution(
        newExecution({ owner: { tokenId: erin.id, userId: 'erin' }, createdAt: new Date() }),
      );
      const today = new Date();
      const noon = (days: number) =>
        new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + days, 12));
      await store.applyChange({
        executionId: execution.id,
        fromStates: ['PENDING'],
        state: 'RUNNING',
        now: noon(-1),
      });
      for (const [days, tokens] of [
        [-1, 100],
        [0, 2100],
        [1, 30],
      ] as const) {
        const usage = {
          prompt_tokens: tokens,
          completion_tokens: 0,
          total_tokens: tokens,
          cost_usd: tokens / 1000,
        };
        const call = anyLogEntry('model-call-end', {
          task_id: 'research',
          attempt: 1,
          model: 'm',
          text: '',
          tool_calls: [],
          usage,
        });
        await store.applyChange({
          executionId: execution.id,
          fromStates: ['RUNNING'],
          events: [call, call],
          now: noon(days),
        });
        spendByDay.set(
          noon(days).toISOString().slice(0, 10),
          `${2 * tokens} tokens, $${(2 * tokens) / 1000}`,
        );
      }
    } finally {
      await store.close();
    }

    const listed = await runCrewd(['tokens', 'list', '--database', database]);
    expect(listed.code).toBe(0);
    const [header, ...rows] = listed.stdout.trimEnd().split('\n');
    const day = /SPENT (\d{4}-\d\d-\d\d)/.exec(header!)![1]!;
    expect(rows.find((row) => /\berin\b/.test(row))).toContain(
      `50000 tokens, $2.5  ${spendByDay.get(day)}  `,
    );
    // A token without a daily budget, whose executions spent nothing.
    expect(rows.find((row) => /\bfinn\b/.test(row))).toMatch(/\*\s+-\s+-\s+\d{4}-/);
  });
});
