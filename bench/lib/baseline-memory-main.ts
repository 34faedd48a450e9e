// The baseline of figure 4: plain baseline runs held in flight on a slow model, in a fresh process whose RSS
// is measured the same way as crewd's. The parent says when every call has reached the model. Run with
// --expose-gc, so the reading before starts from a collected heap as the server's does.
import { createBaselineRun } from './baseline-run.ts';
import { sampleFor } from './proc-readings.ts';
import { runConcurrently } from './run-concurrently.ts';
import { median } from './stats.ts';

const [modelUrl = '', count = '1000', slowTopic = '', settle = '1000'] = process.argv.slice(2);
const settleMs = Number(settle);
const collect = (): void => (globalThis as { gc?: () => void }).gc?.();
const baseline = createBaselineRun(modelUrl);
await runConcurrently(Math.min(200, Number(count)), 50, () => baseline('tides'));
collect();
await new Promise((done) => setTimeout(done, settleMs));
const idle = median(await sampleFor(() => process.memoryUsage.rss(), settleMs));

process.on('message', (message: { type: string }) => {
  if (message.type === 'go') {
    for (let index = 0; index < Number(count); index += 1) void baseline(slowTopic).catch(() => undefined);
  }
  if (message.type === 'sample') {
    void sampleFor(() => process.memoryUsage.rss(), settleMs).then((samples) => {
      const loaded = median(samples);
      collect();
      process.send?.({ type: 'rss', idle, loaded, loadedCollected: process.memoryUsage.rss() });
    });
  }
});
process.send?.({ type: 'warm' });
