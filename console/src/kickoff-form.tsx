import { useState } from 'preact/hooks';
import type { ApiClient } from './api-client.ts';
import type { CrewDescription } from './api-types.ts';
import { usePolled } from './hooks.ts';

const webhookFields = [
  ['taskWebhookUrl', 'Task webhook URL'],
  ['stepWebhookUrl', 'Step webhook URL'],
  ['crewWebhookUrl', 'Crew webhook URL'],
] as const;

/** A form built from the crew's inputs; on success it follows the new execution. */
export function KickoffForm({ client }: { client: ApiClient }) {
  const crew = usePolled(() => client.crew(), 'crew', null);
  if (crew.value === null) {
    return crew.error === null ? (
      <p aria-live="polite">Loading…</p>
    ) : (
      <p role="alert" class="error">
        {crew.error.message}
      </p>
    );
  }
  return <Form client={client} crew={crew.value} />;
}

function Form({ client, crew }: { client: ApiClient; crew: CrewDescription }) {
  const [inputs, setInputs] = useState<Record<string, string>>({});
  const [meta, setMeta] = useState('');
  const [webhooks, setWebhooks] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    let parsedMeta: Record<string, unknown> | null = null;
    if (meta.trim() !== '') {
      try {
        const value: unknown = JSON.parse(meta);
        if (value === null || typeof value !== 'object' || Array.isArray(value))
          throw new Error('not an object');
        parsedMeta = value as Record<string, unknown>;
      } catch {
        setError('Meta must be a JSON object, such as {"ticket": 42}.');
        return;
      }
    }
    const missing = crew.input_fields
      .filter((field) => field.required && (inputs[field.name] ?? '').trim() === '')
      .map((field) => field.name);
    if (missing.length > 0) {
      setError(`Fill in ${missing.join(', ')}.`);
      return;
    }
    // An optional field left empty is left out, so the flow's state takes its default.
    const given = Object.fromEntries(Object.entries(inputs).filter(([, value]) => value.trim() !== ''));
    const urls = Object.fromEntries(Object.entries(webhooks).filter(([, url]) => url.trim() !== ''));
    setBusy(true);
    try {
      const { kickoff_id } = await client.kickoff({ inputs: given, meta: parsedMeta, webhooks: urls });
      location.hash = `#/executions/${encodeURIComponent(kickoff_id)}`;
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="kickoff-title">
      <h1 id="kickoff-title">Kick off {crew.name}</h1>
      <p class="muted">
        {crew.process} process:{' '}
        {crew.tasks.map((task) => `${task.name}${task.human_input ? ' (review)' : ''}`).join(' → ')}
      </p>
      <form class="kickoff" onSubmit={(event) => void submit(event)} noValidate>
        <fieldset>
          <legend>Inputs</legend>
          {crew.input_fields.length === 0 ? <p class="muted">This crew takes no inputs.</p> : null}
          {crew.input_fields.map((field) => (
            <div class="field" key={field.name}>
              <label for={`input-${field.name}`}>
                {field.name}
                {field.required ? null : <span class="muted"> (optional)</span>}
              </label>
              <input
                id={`input-${field.name}`}
                required={field.required}
                placeholder={placeholderOf(field)}
                value={inputs[field.name] ?? ''}
                onInput={(event) => setInputs({ ...inputs, [field.name]: event.currentTarget.value })}
              />
            </div>
          ))}
        </fieldset>
        <details>
          <summary>Meta and webhooks (optional)</summary>
          <div class="field">
            <label for="meta">Meta (JSON object)</label>
            <textarea
              id="meta"
              rows={3}
              value={meta}
              onInput={(event) => setMeta(event.currentTarget.value)}
            />
          </div>
          {webhookFields.map(([field, label]) => (
            <div class="field" key={field}>
              <label for={field}>{label}</label>
              <input
                id={field}
                type="url"
                inputMode="url"
                value={webhooks[field] ?? ''}
                onInput={(event) => setWebhooks({ ...webhooks, [field]: event.currentTarget.value })}
              />
            </div>
          ))}
        </details>
        {error === null ? null : (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Kick off
        </button>
      </form>
    </section>
  );
}

type InputField = CrewDescription['input_fields'][number];

/** An optional field shows the value the state takes without it: text as it is, other values as JSON. */
function placeholderOf(field: InputField): string | undefined {
  if (!('default' in field) || field.default === undefined || field.default === null) return undefined;
  return typeof field.default === 'string' ? field.default : JSON.stringify(field.default);
}
