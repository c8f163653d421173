/**
 * The OAuth consent page (the authorization endpoint, /app/oauth/authorize): the signed-in admin sees
 * which client asks, for which organization, with which scopes and for which resource, and approves or
 * denies. Both answers send the browser back to the client's redirect URI (with a code, or
 * error=access_denied). A self-registered client's name is its own claim, so the page says so and
 * shows where the answer goes.
 */
import { useState } from 'react';
import { call } from './client';
import { Alert, message, useLoad } from './ui';

interface Consent {
  client: { clientId: string; name: string; oauthAppId: string };
  organizationId: string;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  existingGrant: boolean;
  resource: string | null;
  registration: 'dashboard' | 'dynamic';
}

const SCOPE_TEXT: Record<string, string> = {
  'brands:read': 'read brands and products',
  'assets:read': 'read brand assets',
  'media:read': 'read the media library',
  'media:write': 'add media to the library',
  'channels:read': 'see connected channels',
  'channels:write': 'connect and change channels',
  'publish:read': 'read posts and their status',
  'publish:write': 'create, publish, schedule and cancel posts',
  'analytics:read': 'read post metrics',
  'analytics:write': 'refresh post metrics',
  'comments:read': 'read comments',
  'comments:write': 'reply to comments in public',
  'webhooks:read': 'read webhook endpoints',
  'webhooks:write': 'change webhook endpoints',
  'automations:read': 'read automations',
  'automations:write': 'change and run automations',
};

export default function ConsentPage({ organizationName, userName }: { organizationName?: string; userName?: string }) {
  const query = window.location.search;
  const [consent, error] = useLoad(() => call<Consent>('GET', `/v1/oauth/authorize${query}`), [query]);
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);

  const answer = async (approve: boolean) => {
    setBusy(true);
    setActionError(null);
    try {
      const params = Object.fromEntries(new URLSearchParams(query));
      const { redirectTo } = await call<{ redirectTo: string }>('POST', '/v1/oauth/authorize', { ...params, approve });
      window.location.assign(redirectTo);
    } catch (err) {
      setActionError(message(err));
      setBusy(false);
    }
  };

  if (error) {
    return (
      <main className="card narrow">
        <h1>Connect an app</h1>
        <Alert text={error} />
        <p className="muted">Ask an admin of your organization to connect the app, or start again from the app.</p>
      </main>
    );
  }
  if (!consent)
    return (
      <p className="card narrow" aria-busy="true">
        Loading…
      </p>
    );
  const destination = new URL(consent.redirectUri);
  return (
    <main className="card narrow" aria-labelledby="consent-h">
      <h1 id="consent-h">
        Allow <span data-testid="consent-client">{consent.client.name}</span> to act for {organizationName ?? 'your organization'}?
      </h1>
      {consent.registration === 'dynamic' && (
        <p className="muted">
          This app registered itself; its name is not verified. Approve only if you started this connection from the app you expect.
        </p>
      )}
      <p>
        Signed in as <strong>{userName ?? 'you'}</strong>. The app gets access to{' '}
        <strong>{organizationName ?? consent.organizationId}</strong>
        {consent.resource ? ' through the MCP endpoint' : ' through the API'} and may:
      </p>
      <ul aria-label="requested scopes">
        {consent.scopes.map((s) => (
          <li key={s}>
            {SCOPE_TEXT[s] ?? s} <code className="muted">{s}</code>
          </li>
        ))}
      </ul>
      <p className="muted">
        Your answer goes to <code>{destination.origin}</code>. An admin can disconnect the app at any time under Developers, Connected apps.
      </p>
      <Alert text={actionError} />
      <div className="actions">
        <button type="button" disabled={busy} onClick={() => void answer(true)}>
          Allow
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={() => void answer(false)}>
          Deny
        </button>
      </div>
    </main>
  );
}
