import { describe, expect, it } from 'vitest';
import { CoordinationMetrics } from './coordination-metrics.ts';
import { Metrics } from './metrics.ts';

describe('coordination metrics', () => {
  it('shows executions running here, takeovers and notification lag on the metrics page', async () => {
    const metrics = new Metrics();
    let running = 3;
    const coordination = new CoordinationMetrics(metrics.registry, () => running);
    coordination.observeTakeovers(2);
    coordination.observeTakeovers(0);
    coordination.observeNoticeLag(0.004);
    coordination.observeNoticeLag(0.2);

    let page = await metrics.render();
    expect(page).toContain('crewd_executions_running_here 3');
    expect(page).toContain('crewd_lease_takeovers_total 2');
    expect(page).toContain('crewd_notification_lag_seconds_count 2');
    expect(page).toContain('crewd_notification_lag_seconds_bucket{le="0.005"} 1');

    running = 0;
    page = await metrics.render();
    expect(page).toContain('crewd_executions_running_here 0');
  });
});
