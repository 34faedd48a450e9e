import type { StreamResponse, Task } from '@a2a-js/sdk';
import type { A2aPushTarget, Execution } from '../domain/execution.ts';
import type { ExecutionChange, NewOutboxMessage } from '../store/store.ts';
import { a2aLegacyServerSdk, a2aServerSdk } from './a2a-sdk.ts';
import { a2aTaskOf } from './a2a-task.ts';

interface PushSerializer {
  serialize(response: StreamResponse, task: Task): { body: string };
}

let serializers: Record<A2aPushTarget['protocol'], PushSerializer> | undefined;

/** Made with the first push: most servers never send one. */
function serializerFor(protocol: A2aPushTarget['protocol']): PushSerializer {
  serializers ??= {
    '0.3': new (a2aLegacyServerSdk().V03PushNotificationSerializer)(),
    '1.0': new (a2aServerSdk().V1PushNotificationSerializer)(),
  };
  return serializers[protocol];
}

/** The execution as it is once `change` is written: the fields its A2A task shows. */
function afterChange(execution: Execution, change: ExecutionChange): Execution {
  const patch = change.patch ?? {};
  return {
    ...execution,
    state: change.state ?? execution.state,
    pending: change.pending === undefined ? execution.pending : change.pending,
    result: patch.result === undefined ? execution.result : patch.result,
    resultJson: patch.resultJson === undefined ? execution.resultJson : patch.resultJson,
    error: patch.error === undefined ? execution.error : patch.error,
    updatedAt: change.now,
  };
}

/** The headers an A2A client asked its notifications to carry. Secret: they stay in the outbox. */
function pushHeaders(target: A2aPushTarget): Record<string, string> {
  return {
    ...(target.token === null ? {} : { 'x-a2a-notification-token': target.token }),
    ...(target.authentication === null
      ? {}
      : { authorization: `${target.authentication.scheme} ${target.authentication.credentials}` }),
  };
}

/**
 * The A2A push notifications a change causes: when it moves the execution to another state, the task as it is
 * then, to every push config of the execution, in the body of the protocol version the config was set over.
 */
export function a2aPushMessages(
  execution: Execution,
  change: ExecutionChange,
  targets: readonly A2aPushTarget[],
  newId: () => string,
): NewOutboxMessage[] {
  if (targets.length === 0 || change.state === undefined) return [];
  const task = a2aTaskOf(afterChange(execution, change));
  const response: StreamResponse = { payload: { $case: 'task', value: task } };
  return targets.map((target) => ({
    id: `msg_${newId()}`,
    kind: 'a2a',
    url: target.url,
    payload: JSON.parse(serializerFor(target.protocol).serialize(response, task).body) as Record<
      string,
      unknown
    >,
    headers: pushHeaders(target),
  }));
}
