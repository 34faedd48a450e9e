import { Agent, buildConnector } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchWeb } from '../../../src/tools/builtin/web-fetch.ts';
import { TargetRefusedError } from '../../../src/webhooks/target-guard.ts';
import { startScriptedReceiver } from '../../support/scripted-receiver.ts';
import type { ScriptedReceiver } from '../../support/scripted-receiver.ts';

let site: ScriptedReceiver;
let internal: ScriptedReceiver;
let other: ScriptedReceiver;
let agent: Agent;

beforeAll(async () => {
  site = await startScriptedReceiver();
  internal = await startScriptedReceiver();
  other = await startScriptedReceiver();
  // Both servers are on loopback; this agent refuses one of them the way the target guard refuses private addresses.
  const connect = buildConnector({});
  agent = new Agent({
    connect: (options, callback) => {
      if (options.port === String(internal.port)) callback(new TargetRefusedError(), null);
      else connect(options, callback);
    },
  });
});
afterAll(async () => {
  await agent.close();
  await site.close();
  await internal.close();
  await other.close();
});

const limits = { allowPrivateTargets: false, timeoutMs: 10_000, maxBytes: 10_000 };

describe('fetchWeb', () => {
  it('refuses a redirect to a refused target, naming where it was sent', async () => {
    site.answer('/hop', (response) => response.writeHead(302, { location: `${internal.url}/admin` }).end());
    const url = new URL(`${site.url}/hop`);

    const request = {
      url,
      label: url.href,
      method: 'GET',
      headers: {},
      maxRedirects: 5,
      overSize: 'cut',
    } as const;
    await expect(fetchWeb(request, limits, new AbortController().signal, agent)).rejects.toThrow(
      `Refused to fetch ${url.href} (redirected to ${internal.url}/admin): its address is loopback, private`,
    );
    expect(internal.received).toHaveLength(0);
  });

  it('does not carry cookies or keys to another origin on a redirect', async () => {
    site.answer('/away', (response) => response.writeHead(307, { location: `${other.url}/landing` }).end());
    const url = new URL(`${site.url}/away`);

    await fetchWeb(
      {
        url,
        label: url.href,
        method: 'GET',
        headers: { cookie: 'session=1', 'x-api-key': 'k', accept: 'text/html' },
        maxRedirects: 5,
        overSize: 'cut',
      },
      limits,
      new AbortController().signal,
      agent,
    );

    expect(site.on('/away')[0]!.headers.cookie).toBe('session=1');
    const landing = other.on('/landing')[0]!;
    expect(landing.headers.cookie).toBeUndefined();
    expect(landing.headers['x-api-key']).toBeUndefined();
    expect(landing.headers.accept).toBe('text/html');
  });
});
