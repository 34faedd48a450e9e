import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noWebhooks } from '../../src/domain/execution.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { DeliveryRecord, NewOutboxMessage, Store, WebhookKind } from '../../src/store/store.ts';
import { hangAfterMs, until } from '../support/until.ts';

export interface OutboxFixture {
  /** The SQLite file, for opening a second store on it. */
  readonly path: string;
  readonly store: Store;
  /** Creates an execution (once per id) and queues messages on it in one change; returns the message ids. */
  enqueue(executionId: string, messages: readonly MessageSpec[]): Promise<string[]>;
  /** Waits until the message is delivered or failed, and returns its record. */
  settled(executionId: string, messageId: string, timeoutMs?: number): Promise<DeliveryRecord>;
  cleanup(): Promise<void>;
}

export interface MessageSpec {
  readonly url: string;
  readonly payload?: Record<string, unknown>;
  readonly headers?: Record<string, string>;
  readonly kind?: WebhookKind;
  readonly id?: string;
}

/** A real SQLite store in a temporary directory, with helpers to queue webhook messages through it. */
export async function openOutboxFixture(): Promise<OutboxFixture> {
  const directory = mkdtempSync(join(tmpdir(), 'crewd-webhooks-'));
  const path = join(directory, 'crewd.db');
  const store = await openSqliteStore(path);
  await store.migrate();
  const created = new Set<string>();

  async function enqueue(executionId: string, messages: readonly MessageSpec[]): Promise<string[]> {
    if (!created.has(executionId)) {
      created.add(executionId);
      await store.createExecution({
        id: executionId,
        inputs: {},
        meta: null,
        webhooks: noWebhooks,
        owner: { tokenId: 'token-1', userId: null },
        idempotencyKey: null,
        requestHash: null,
        createdAt: new Date(),
      });
    }
    const outbox: NewOutboxMessage[] = messages.map((message) => ({
      id: message.id ?? `msg_${randomUUID()}`,
      kind: message.kind ?? 'task',
      url: message.url,
      payload: message.payload ?? { kickoff_id: executionId },
      headers: message.headers ?? {},
    }));
    const applied = await store.applyChange({
      executionId,
      fromStates: ['PENDING', 'RUNNING', 'PAUSED', 'SUCCESS', 'FAILED', 'REVOKED'],
      outbox,
      now: new Date(),
    });
    if (applied === null) throw new Error('the change queuing webhook messages was not applied');
    return outbox.map((message) => message.id);
  }

  async function settled(
    executionId: string,
    messageId: string,
    timeoutMs = hangAfterMs,
  ): Promise<DeliveryRecord> {
    let record: DeliveryRecord | undefined;
    await until(
      async () => {
        record = (await store.listDeliveries(executionId)).find((item) => item.id === messageId);
        return record !== undefined && record.status !== 'pending';
      },
      timeoutMs,
      () => `message ${messageId} is still ${record?.status ?? 'missing'}`,
    );
    return record!;
  }

  return {
    path,
    store,
    enqueue,
    settled,
    async cleanup() {
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
