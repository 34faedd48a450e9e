import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { CrewdError } from '../domain/errors.ts';
import { createWebhookSigner } from './signer.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;

describe('createWebhookSigner', () => {
  it('produces headers the official Standard Webhooks verifier accepts', () => {
    const body = JSON.stringify({ kickoff_id: 'k-1', meta: { a: 1 } });
    const headers = createWebhookSigner(secret)('msg_1', new Date(), body);
    expect(headers['webhook-id']).toBe('msg_1');
    expect(headers['webhook-signature']).toMatch(/^v1,/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual({ kickoff_id: 'k-1', meta: { a: 1 } });
  });

  it('signs id, timestamp and body together, so changing any of them fails verification', () => {
    const at = new Date();
    const headers = createWebhookSigner(secret)('msg_1', at, '{"a":1}');
    const verifier = new Webhook(secret);
    expect(() => verifier.verify('{"a":2}', { ...headers })).toThrow();
    expect(() => verifier.verify('{"a":1}', { ...headers, 'webhook-id': 'msg_2' })).toThrow();
    const earlier = String(Math.floor(at.getTime() / 1000) - 1);
    expect(() => verifier.verify('{"a":1}', { ...headers, 'webhook-timestamp': earlier })).toThrow();
    expect(() =>
      new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify('{"a":1}', { ...headers }),
    ).toThrow();
  });

  it('puts the attempt time in webhook-timestamp as Unix seconds', () => {
    const headers = createWebhookSigner(secret)('msg_1', new Date('2030-01-02T03:04:05.678Z'), '{}');
    expect(headers['webhook-timestamp']).toBe(String(Date.UTC(2030, 0, 2, 3, 4, 5) / 1000));
  });

  it('leaves the signature out without a secret', () => {
    const headers = createWebhookSigner(undefined)('msg_1', new Date(), '{}');
    expect(headers).toEqual({ 'webhook-id': 'msg_1', 'webhook-timestamp': expect.stringMatching(/^\d+$/) });
  });

  it.each(['secret', 'whsec_', 'whsec_not base64!', 'whsec_abc'])(
    'refuses the secret %j naming CREWD_WEBHOOK_SECRET without echoing it',
    (bad) => {
      expect(() => createWebhookSigner(bad)).toThrow(CrewdError);
      try {
        createWebhookSigner(bad);
      } catch (error) {
        expect((error as CrewdError).code).toBe('CONFIG_INVALID');
        expect((error as CrewdError).message).toContain('CREWD_WEBHOOK_SECRET');
        if (bad.length > 6) expect((error as CrewdError).message).not.toContain(bad);
      }
    },
  );
});
