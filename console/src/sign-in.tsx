import { useState } from 'preact/hooks';
import { ApiClient, ApiError } from './api-client.ts';

/** Asks for a token and keeps it only once the server accepts it. */
export function SignIn({ onSignedIn }: { onSignedIn: (token: string) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const candidate = token.trim();
    if (candidate === '') {
      setError('Enter a token.');
      return;
    }
    setBusy(true);
    try {
      // The served crews answer for any valid token, whichever crews it reaches.
      await new ApiClient(candidate).crews();
      onSignedIn(candidate);
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.status === 401
          ? 'That token was not accepted. Check it, or create one with npx crewd tokens create.'
          : failure instanceof Error
            ? failure.message
            : 'Signing in failed.',
      );
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <h1>crewd console</h1>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <label for="token">Token</label>
        <input
          id="token"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={token}
          aria-invalid={error !== null}
          aria-describedby="token-help"
          onInput={(event) => setToken(event.currentTarget.value)}
          autofocus
        />
        <p id="token-help" class="help">
          An organization or user token. It is kept for this browser tab only.
        </p>
        {error === null ? null : (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
