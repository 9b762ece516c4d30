import { useState } from 'preact/hooks';
import type { Credentials } from './session.js';

/** The tenant's client id and secret, checked before they are kept (for this browser session only). */
export function SignIn({ onSignIn }: { onSignIn(credentials: Credentials): Promise<string | undefined> }) {
  const [clientId, setClientId] = useState('');
  const [clientSecret, setClientSecret] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="sign-in"
      aria-labelledby="sign-in-heading"
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        setError(await onSignIn({ clientId: clientId.trim(), clientSecret }));
        setBusy(false);
      }}
    >
      <h2 id="sign-in-heading">Sign in</h2>
      <p class="note">
        An operator tool until user sign-in exists: it signs in with a client id and secret of the tenant, which this browser keeps only until the tab is closed.
      </p>
      <label>
        Client id <input name="client_id" autocomplete="username" value={clientId} onInput={(event) => setClientId((event.target as HTMLInputElement).value)} required />
      </label>
      <label>
        Client secret{' '}
        <input name="client_secret" type="password" autocomplete="current-password" value={clientSecret} onInput={(event) => setClientSecret((event.target as HTMLInputElement).value)} required />
      </label>
      <button type="submit" disabled={busy}>
        Sign in
      </button>
      {error !== undefined && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  );
}
