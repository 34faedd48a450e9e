import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finished, repoRoot, runCrewd, spawnCrewd as spawnCommand, watchStderr } from './crewd-command.ts';
import { apiClient, spawnCrewd, tempDatabase } from '../support/crewd.ts';
import { startFakeOpenAI } from '../support/fake-openai-server.ts';
import type { RecordedRequest } from '../support/fake-openai-server.ts';
import { userCrew } from '../support/user-crew.ts';

const exampleFlow = join(repoRoot, 'examples/review-flow');
const inputs = JSON.stringify({ topic: 'AI agents in production' });

describe('crewd run with a flow', () => {
  it('runs the example offline, routes it, and publishes on approval', async () => {
    const result = await runCrewd(['run', userCrew(exampleFlow), '--inputs', inputs], {
      input: 'approved\n',
    });
    expect(result.stderr).toContain('review is waiting for your review:');
    expect(result.stderr).toContain('Outcomes: approved, needs_changes');
    expect(result.stderr).not.toContain('stand-in');
    expect(result.stdout).toMatch(/^PUBLISHED for engineers: AI agents in production fail less/);
    expect(result.stderr).toMatch(/Token usage: \d+ total .* over 2 model calls/);
    expect(result.code).toBe(0);
  });

  it('has the review model classify free-text feedback and sends the draft back', async () => {
    const result = await runCrewd(['run', userCrew(exampleFlow), '--inputs', inputs], {
      input: 'add a concrete example\n',
    });
    expect(result.stdout.trim()).toBe('Sent back to the writer: add a concrete example');
    expect(result.code).toBe(0);
  });

  it('takes the default outcome for empty feedback and an outcome named exactly', async () => {
    const empty = await runCrewd(['run', userCrew(exampleFlow), '--inputs', inputs], { input: '\n' });
    expect(empty.stderr).toContain(
      'Outcomes: approved, needs_changes (empty feedback takes approved; other text is matched to one)',
    );
    expect(empty.stdout).toMatch(/^PUBLISHED for engineers: /);
    expect(empty.code).toBe(0);
    const named = await runCrewd(['run', userCrew(exampleFlow), '--inputs', inputs], {
      input: 'needs_changes\n',
    });
    expect(named.stdout.trim()).toBe('Sent back to the writer: needs_changes');
    expect(named.code).toBe(0);
  });

  it('rejects the review of a method without outcomes: the method runs again with the feedback', async () => {
    let drafts = 0;
    const model = await startFakeOpenAI({ respond: () => ({ content: `Draft number ${(drafts += 1)}.` }) });
    const chatCalls = (): RecordedRequest[] =>
      model.requests.filter((request) => request.path.endsWith('/chat/completions'));
    try {
      const child = spawnCommand(
        ['run', userCrew(join(repoRoot, 'test/e2e/flows/retry-flow')), '--inputs', '{"topic": "kettles"}'],
        { env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test' }, keepStdinOpen: true },
      );
      const stderr = watchStderr(child);
      const result = finished(child);
      const first = await stderr.waitFor('start it with "reject:" to have draft run again with it');
      expect(first).toContain('draft is waiting for your review:');
      expect(first).toContain('Draft number 1.');
      child.stdin.write('reject: Mention that they whistle.\n');

      const second = await stderr.waitFor('start it with "reject:" to have draft run again with it', 2);
      expect(second.slice(second.indexOf('Mention that they whistle.'))).toContain(
        'draft (attempt 2) is waiting for your review:',
      );
      expect(second.slice(second.indexOf('(attempt 2)'))).toContain('Draft number 2.');
      expect(chatCalls()).toHaveLength(2);
      const retried = JSON.stringify(chatCalls()[1]!.body.messages);
      expect(retried).toContain('Mention that they whistle.');
      expect(retried).toContain('Draft number 1.');
      expect(JSON.stringify(chatCalls()[0]!.body.messages)).not.toContain('whistle');
      child.stdin.end('Good now.\n');

      const done = await result;
      expect(done.stdout.trim()).toBe('PUBLISHED: Draft number 2.');
      expect(done.code).toBe(0);
      expect(chatCalls()).toHaveLength(2);
    } finally {
      await model.close();
    }
  });

  it("runs a flow's Python actions in the project's Python", async () => {
    const dir = userCrew(join(repoRoot, 'test/fixtures/flows/python-flow'));
    const result = await runCrewd(['run', dir, '--inputs', '{"owner": "Ada"}'], {
      env: { CREWD_PYTHON: 'python3', CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION: '1' },
    });
    expect(result.stdout.trim()).toBe('Ada 15 30 opened for Ada');
    expect(result.code).toBe(0);
    const checked = await runCrewd(['check', dir], {
      env: { CREWD_PYTHON: 'python3', CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION: '1' },
    });
    expect(checked.stdout).toContain('Inputs (state fields): owner, total, entries');
    expect(checked.stdout).toMatch(/Python actions run by python3 \(from CREWD_PYTHON\), Python 3\.\d+/);
    expect(checked.code).toBe(0);
  });

  it('refuses inputs that do not fit the state before anything runs', async () => {
    const result = await runCrewd(['run', userCrew(exampleFlow), '--inputs', '{"colour": "red"}']);
    expect(result.stderr).toContain("missing required input 'topic'");
    expect(result.stderr).toContain("unknown input 'colour'");
    expect(result.code).toBe(1);
  });
});

describe('crewd check with a flow', () => {
  it('reports methods, inputs and what is not honoured', async () => {
    const result = await runCrewd(['check', userCrew(exampleFlow)]);
    expect(result.stdout).toContain('Flow ArticleReviewFlow (flow.yaml)');
    expect(result.stdout).toMatch(/length_check\s+listen: draft, expression, router → short, long/);
    expect(result.stdout).toMatch(
      /review\s+listen: \(short or long\), expression, human feedback → approved, needs_changes/,
    );
    expect(result.stdout).toContain('Inputs (state fields): topic, audience');
    expect(result.code).toBe(0);
  });

  it("lists the Python tools a flow's agents name and refuses a tool no source provides", async () => {
    const dir = userCrew(join(repoRoot, 'test/fixtures/flows/tooled-flow'));
    const listed = await runCrewd(['check', dir], { env: { CREWD_PYTHON: 'python3' } });
    expect(listed.stdout).toContain('Python tools:');
    expect(listed.stdout).toContain(
      'courier_status ("Courier Status", offered to the model as courier_status)',
    );
    expect(listed.code).toBe(0);
    const flowFile = join(dir, 'flow.yaml');
    writeFileSync(flowFile, readFileSync(flowFile, 'utf8').replace('lookup_order,', 'lookup_orders,'));
    const refused = await runCrewd(['check', dir], { env: { CREWD_PYTHON: 'python3' } });
    expect(refused.stderr).toContain(
      "flow.yaml (methods.investigate.do.with.tools[0]): method 'investigate' gives an agent the tool 'lookup_orders', which no tool source provides",
    );
    expect(refused.code).toBe(1);
  });

  it('fails naming the file and key of a bad flow', async () => {
    const dir = userCrew(join(repoRoot, 'test/fixtures/flows/bad-flow'));
    const result = await runCrewd(['check', dir]);
    expect(result.stderr).toContain(
      "flow.yaml (methods.loop.listen): methods.loop.listen listen condition 'loop' references the handler name 'loop'",
    );
    expect(result.code).toBe(1);
  });
});

describe('crewd serve with a flow', () => {
  it('serves a flow file offline: kickoff, review, resume, result', async () => {
    const model = await startFakeOpenAI();
    const crewd = await spawnCrewd({
      crewDir: join(userCrew(exampleFlow), 'flow.yaml'),
      modelUrl: model.url,
    });
    try {
      const api = apiClient(crewd.url);
      expect((await api.get('/inputs')).body).toEqual({ inputs: ['topic', 'audience'] });
      const kickoff = await api.post('/kickoff', { inputs: JSON.parse(inputs) as Record<string, unknown> });
      const id = kickoff.body.kickoff_id as string;
      const paused = await api.waitForState(id, ['PAUSED']);
      expect(paused.body.pending_human_input).toMatchObject({ task_id: 'review' });
      await api.post('/resume', {
        execution_id: id,
        task_id: 'review',
        human_feedback: 'approved',
        is_approve: true,
      });
      const done = await api.waitForState(id, ['SUCCESS', 'FAILED']);
      expect(done.body.result).toMatch(/^PUBLISHED for engineers: AI agents in production fail less/);
      expect(model.requests).toHaveLength(0);
    } finally {
      crewd.child.kill('SIGKILL');
      await crewd.exited;
      await model.close();
    }
  });

  it('refuses a flow that does not load, naming its file and key', async () => {
    const dir = userCrew(join(repoRoot, 'test/fixtures/flows/bad-flow'));
    const result = await runCrewd(['serve', dir, '--port', '0', '--database', tempDatabase()]);
    expect(result.stderr).toContain('flow.yaml (methods.loop.listen)');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(1);
  });
});
