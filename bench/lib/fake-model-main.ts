// The model for every figure, in a process of its own so its work never counts against what is measured.
import { startFakeOpenAI } from '../../test/support/fake-openai-server.ts';

/** A prompt that contains `slow-<ms>` is answered after that many milliseconds. */
const slowMarker = /\bslow-(\d+)\b/;
const delegateTool = 'Delegate_work_to_coworker';
/** The first coworker a delegation tool's description lists (`- <role>` lines). */
const firstCoworker = /\n- ([^\n]+)/;

type Tools = { function: { name: string; description: string } }[] | undefined;

/** A manager offered the delegation tool hands the task to its first coworker once, then answers with its result. */
function delegation(body: { tools?: Tools; messages?: { role: string }[] }) {
  const tool = body.tools?.find((candidate) => candidate.function.name === delegateTool);
  if (tool === undefined || body.messages?.some((message) => message.role === 'tool')) return undefined;
  const coworker = firstCoworker.exec(tool.function.description)?.[1] ?? '';
  return [{ name: delegateTool, arguments: { task: 'Do the task', context: 'All there is', coworker } }];
}

let received = 0;
let slowReceived = 0;

const model = await startFakeOpenAI({
  respond: (request) => {
    received += 1;
    // The fake server keeps every request for tests; a benchmark would only grow it without bound.
    model.requests.length = 0;
    const delayMs = Number(slowMarker.exec(JSON.stringify(request.body?.messages ?? ''))?.[1] ?? 0);
    if (delayMs > 0) slowReceived += 1;
    // The time the answer leaves, so a webhook receiver can tell how long the answer took to reach it.
    const sentAt = performance.timeOrigin + performance.now() + delayMs;
    const toolCalls = delegation(request.body ?? {});
    if (toolCalls !== undefined) return { toolCalls, delayMs };
    return { content: `Answer ${received}, sent at ${sentAt.toFixed(3)} ms.`, delayMs };
  },
});

process.on('message', (message: { type: string }) => {
  if (message.type === 'stats') {
    process.send?.({
      type: 'stats',
      received,
      slowReceived,
      now: performance.timeOrigin + performance.now(),
    });
  }
});
process.on('disconnect', () => void model.close().then(() => process.exit(0)));
process.on('SIGTERM', () => void model.close().then(() => process.exit(0)));
process.send?.({ type: 'ready', url: model.url });
