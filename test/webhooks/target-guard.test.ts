import { randomUUID } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryWorker } from '../../src/webhooks/delivery-worker.ts';
import { createGuardedAgent, TargetRefusedError } from '../../src/webhooks/target-guard.ts';
import { openOutboxFixture } from './outbox-fixture.ts';
import type { OutboxFixture } from './outbox-fixture.ts';
import { startScriptedReceiver } from '../support/scripted-receiver.ts';
import type { ScriptedReceiver } from '../support/scripted-receiver.ts';

/** Resolves `*.rebind.test` to loopback, as a hostile DNS server would; everything else as usual. */
const hostileLookup: LookupFunction = (hostname, options, callback) => {
  if (!hostname.endsWith('.rebind.test')) {
    dnsLookup(hostname, options, callback);
    return;
  }
  if (options.all === true) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

let receiver: ScriptedReceiver;
let fixture: OutboxFixture;

beforeAll(async () => {
  receiver = await startScriptedReceiver();
  fixture = await openOutboxFixture();
});

afterAll(async () => {
  await receiver.close();
  await fixture.cleanup();
});

/** Spellings of the receiver's own loopback address: refused when guarded, reaching it when private is allowed. */
function loopbackSpellings(port: number): string[] {
  return [
    `http://127.0.0.1:${port}/dotted`,
    `http://2130706433:${port}/decimal`,
    `http://0x7f000001:${port}/hex`,
    `http://0177.0.0.1:${port}/octal`,
    `http://0x7f.0.0.1:${port}/hex-octet`,
    `http://127.1:${port}/short`,
    `http://127.0.1:${port}/three-part`,
    `http://127.000.000.001:${port}/zero-padded`,
    `http://localhost:${port}/localhost`,
    `http://LOCALHOST:${port}/upper-case-localhost`,
    `http://hooks.rebind.test:${port}/name-resolving-to-loopback`,
  ];
}

function otherRefusedSpellings(port: number): string[] {
  return [
    `http://[::1]:${port}/ipv6-loopback`,
    `http://[0:0:0:0:0:0:0:1]:${port}/ipv6-loopback-long`,
    `http://[::ffff:127.0.0.1]:${port}/mapped`,
    `http://[::ffff:7f00:1]:${port}/mapped-hex`,
    `http://[::127.0.0.1]:${port}/compatible`,
    `http://[64:ff9b::7f00:1]:${port}/nat64`,
    `http://[2002:7f00:1::1]:${port}/6to4`,
    `http://0.0.0.0:${port}/unspecified`,
    `http://0:${port}/zero`,
    `http://[::]:${port}/ipv6-unspecified`,
    'http://10.0.0.1/private-10',
    'http://172.16.0.1/private-172',
    'http://192.168.1.1/private-192',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.100.100.200/latest/meta-data/',
    'http://[fd00:ec2::254]/latest/meta-data/',
    'http://100.64.0.1/cgnat',
    'http://[fe80::1]/link-local',
    'http://[fc00::1]/unique-local',
    'http://224.0.0.1/multicast',
    'http://255.255.255.255/broadcast',
    'http://240.0.0.1/reserved',
  ];
}

function worker(allowPrivate: boolean) {
  return createDeliveryWorker({
    store: fixture.store,
    allowPrivate,
    schedule: [],
    clock: () => new Date(),
    timeoutMs: 2000,
    pollIntervalMs: 20,
    lookup: hostileLookup,
  });
}

describe('webhook target guard', () => {
  it('refuses every spelling of a local target and records why, without a connection reaching the receiver', async () => {
    const urls = [...loopbackSpellings(receiver.port), ...otherRefusedSpellings(receiver.port)];
    expect(urls.length).toBeGreaterThanOrEqual(20);
    // One execution per URL, so no message waits for another one to the same URL.
    const queued = await Promise.all(
      urls.map(async (url) => {
        const executionId = randomUUID();
        const [messageId] = await fixture.enqueue(executionId, [{ url }]);
        return { url, executionId, messageId: messageId! };
      }),
    );
    const guarded = worker(false);
    guarded.start();
    try {
      for (const { url, executionId, messageId } of queued) {
        const record = await fixture.settled(executionId, messageId);
        expect({ url, status: record.status, attempts: record.attempts.length }).toEqual({
          url,
          status: 'failed',
          attempts: 1,
        });
        expect(record.attempts[0]).toMatchObject({
          statusCode: null,
          error: 'target address is not allowed',
        });
      }
    } finally {
      await guarded.stop();
    }
    expect(receiver.received).toHaveLength(0);
    expect(receiver.connections()).toBe(0);
  });

  it('reaches the same loopback targets when private addresses are allowed', async () => {
    const urls = loopbackSpellings(receiver.port);
    const queued = await Promise.all(
      urls.map(async (url) => {
        const executionId = randomUUID();
        const [messageId] = await fixture.enqueue(executionId, [{ url }]);
        return { executionId, messageId: messageId! };
      }),
    );
    const open = worker(true);
    open.start();
    try {
      for (const { executionId, messageId } of queued) {
        const record = await fixture.settled(executionId, messageId);
        expect(record.status).toBe('delivered');
      }
    } finally {
      await open.stop();
    }
    const paths = receiver.received.map((request) => request.path).sort();
    expect(paths).toEqual(urls.map((url) => new URL(url).pathname).sort());
  });
});

describe('createGuardedAgent', () => {
  it('refuses inside the connector, so a plain undici request through it cannot reach a local target', async () => {
    const agent = await createGuardedAgent({
      allowPrivate: false,
      connectTimeoutMs: 2000,
      lookup: hostileLookup,
    });
    const before = receiver.connections();
    try {
      for (const url of [
        `http://2130706433:${receiver.port}/`,
        `http://hooks.rebind.test:${receiver.port}/`,
      ]) {
        await expect(request(url, { dispatcher: agent, method: 'POST', body: '{}' })).rejects.toBeInstanceOf(
          TargetRefusedError,
        );
      }
    } finally {
      await agent.close();
    }
    expect(receiver.connections()).toBe(before);
  });
});
