import type { Delivery } from './api-types.ts';
import { time } from './format.ts';

/** The execution's webhook messages, each with every delivery attempt. */
export function DeliveryTable({ deliveries }: { deliveries: readonly Delivery[] }) {
  if (deliveries.length === 0) return <p class="muted">No webhooks were sent for this execution.</p>;
  return (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">URL</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => (
            <tr key={delivery.id}>
              <td>{delivery.kind}</td>
              <td class="mono wrap">{delivery.url}</td>
              <td>{delivery.status}</td>
              <td>
                <ol class="attempts">
                  {delivery.attempts.map((attempt) => (
                    <li key={attempt.attempt}>
                      {time(attempt.at)}: {attempt.status_code ?? attempt.error ?? 'no answer'} (
                      {Math.round(attempt.duration_ms)} ms)
                    </li>
                  ))}
                </ol>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
