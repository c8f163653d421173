/**
 * Developers page, credentials: the organization's API keys, OAuth apps and OAuth grants. Secrets (an API
 * key, an OAuth client secret) are in the create answer only, so they are shown once, until "I have copied it".
 */
import { type FormEvent, useState } from 'react';
import type { paths } from '../../packages/sdk/src/generated/openapi';
import { client, ok, type Schemas } from './client';
import ConnectedApps from './connected-apps';
import { Alert, message, useLoad } from './ui';

type ApiKey = Schemas['ApiKey'];
type OAuthApp = Schemas['OAuthApp'];
type OAuthGrant = Schemas['OAuthGrant'];
type Scope = NonNullable<NonNullable<paths['/v1/api-keys']['post']['requestBody']>['content']['application/json']['scopes']>[number];

const SCOPES: Scope[] = [
  'brands:read',
  'assets:read',
  'media:read',
  'media:write',
  'channels:read',
  'channels:write',
  'publish:read',
  'publish:write',
  'analytics:read',
  'analytics:write',
  'comments:read',
  'comments:write',
  'webhooks:read',
  'webhooks:write',
  'automations:read',
  'automations:write',
];

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/** A secret shown once, with a copy button; gone after "I have copied it". */
export function ShownOnce({ label, secret, testId, onDone }: { label: string; secret: string; testId: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The clipboard is not available; select the text and copy it.');
    }
  };
  return (
    <div role="status" className="panel secret">
      <p>{label} (shown only now):</p>
      <code data-testid={testId} className="break">
        {secret}
      </code>
      <div className="actions">
        <button type="button" className="secondary" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          I have copied it
        </button>
      </div>
      {copied && <p className="muted">{copied}</p>}
    </div>
  );
}

/** A destructive action behind an inline confirmation (no window.confirm: it is announced and testable). */
export function Confirm({ label, confirmLabel, onConfirm }: { label: string; confirmLabel: string; onConfirm: () => Promise<void> }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" className="secondary" onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <fieldset className="buttons" aria-label={confirmLabel}>
      <button
        type="button"
        className="danger"
        onClick={() => {
          setAsking(false);
          void onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </fieldset>
  );
}

function ScopePicker({ selected, onChange, legend }: { selected: Scope[]; onChange: (s: Scope[]) => void; legend: string }) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      <div className="scopes">
        {SCOPES.map((s) => (
          <label key={s} className="check">
            <input
              type="checkbox"
              checked={selected.includes(s)}
              onChange={(e) => onChange(e.target.checked ? [...selected, s] : selected.filter((x) => x !== s))}
            />{' '}
            {s}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function ApiKeys() {
  const [keys, error, reload] = useLoad(
    () => ok(client.GET('/v1/api-keys', { params: { query: { limit: 100 } } })).then((r) => r.data as ApiKey[]),
    [],
  );
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(SCOPES);
  const [secret, setSecret] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const create = async (e: FormEvent) => {
    e.preventDefault();
    setActionError(null);
    setNote(null);
    if (scopes.length === 0) return setActionError('Choose at least one scope.');
    try {
      const created = await ok(client.POST('/v1/api-keys', { body: { name, scopes } }));
      setSecret(created.secret);
      setName('');
      reload();
    } catch (err) {
      setActionError(message(err));
    }
  };
  const revoke = async (k: ApiKey) => {
    setActionError(null);
    try {
      await ok(client.DELETE('/v1/api-keys/{apiKeyId}', { params: { path: { apiKeyId: k.apiKeyId } } }));
      setNote(`API key ${k.name} revoked.`);
      reload();
    } catch (err) {
      setActionError(message(err));
    }
  };
  return (
    <section aria-labelledby="keys-h">
      <h2 id="keys-h">API keys</h2>
      <Alert text={error} />
      <div className="scroll-x">
        <table aria-label="API keys">
          <thead>
            <tr>
              <th>Name</th>
              <th>Key</th>
              <th>Scopes</th>
              <th>Last used</th>
              <th>Status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {keys?.map((k) => (
              <tr key={k.apiKeyId} data-api-key={k.apiKeyId}>
                <td>{k.name}</td>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td className="muted">{k.scopes.length === SCOPES.length ? 'all' : k.scopes.join(', ')}</td>
                <td>{when(k.lastUsedAt)}</td>
                <td>
                  <span className={`badge ${k.revokedAt ? 'bad' : 'ok'}`}>{k.revokedAt ? 'revoked' : 'active'}</span>
                </td>
                <td>{!k.revokedAt && <Confirm label="Revoke" confirmLabel={`Revoke ${k.name}`} onConfirm={() => revoke(k)} />}</td>
              </tr>
            ))}
            {keys?.length === 0 && (
              <tr>
                <td colSpan={6} className="muted">
                  No API keys yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <form onSubmit={create} aria-label="new API key" className="policy">
        <label>
          Key name
          <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={120} />
        </label>
        <ScopePicker legend="Key scopes" selected={scopes} onChange={setScopes} />
        <button type="submit">Create API key</button>
      </form>
      {note && <p role="status">{note}</p>}
      <Alert text={actionError} />
      {secret && <ShownOnce label="API key" secret={secret} testId="api-key-secret" onDone={() => setSecret(null)} />}
    </section>
  );
}

function OAuthApps() {
  const [apps, error, reload] = useLoad(
    () => ok(client.GET('/v1/oauth/apps', { params: { query: { limit: 100 } } })).then((r) => r.data as OAuthApp[]),
    [],
  );
  const [name, setName] = useState('');
  const [redirects, setRedirects] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['brands:read', 'publish:read']);
  const [secret, setSecret] = useState<{ clientId: string; clientSecret: string } | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const create = async (e: FormEvent) => {
    e.preventDefault();
    setActionError(null);
    const redirectUris = redirects
      .split('\n')
      .map((u) => u.trim())
      .filter(Boolean);
    if (scopes.length === 0) return setActionError('Choose at least one scope.');
    try {
      const created = await ok(client.POST('/v1/oauth/apps', { body: { name, redirectUris, scopes } }));
      if (created.clientSecret) setSecret({ clientId: created.oauthApp.clientId, clientSecret: created.clientSecret });
      setName('');
      setRedirects('');
      reload();
    } catch (err) {
      setActionError(message(err));
    }
  };
  const remove = async (a: OAuthApp) => {
    setActionError(null);
    try {
      await ok(client.DELETE('/v1/oauth/apps/{oauthAppId}', { params: { path: { oauthAppId: a.oauthAppId } } }));
      reload();
    } catch (err) {
      setActionError(message(err));
    }
  };
  return (
    <section aria-labelledby="apps-h">
      <h2 id="apps-h">OAuth apps</h2>
      <Alert text={error} />
      <ul className="list" aria-label="OAuth apps">
        {apps?.map((a) => (
          <li key={a.oauthAppId} data-oauth-app={a.oauthAppId}>
            <strong>{a.name}</strong> <code className="break">{a.clientId}</code>
            <div className="muted break">Redirect URIs: {a.redirectUris.join(', ')}</div>
            <div className="muted">Scopes: {a.scopes.join(', ')}</div>
            <Confirm label="Delete" confirmLabel={`Delete ${a.name}`} onConfirm={() => remove(a)} />
          </li>
        ))}
        {apps?.length === 0 && <li className="muted">No OAuth apps yet.</li>}
      </ul>
      <form onSubmit={create} aria-label="new OAuth app" className="policy">
        <label>
          App name
          <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={120} />
        </label>
        <label>
          Redirect URIs (one a line)
          <textarea
            rows={2}
            value={redirects}
            onChange={(e) => setRedirects(e.target.value)}
            required
            placeholder="https://app.example.com/callback"
          />
        </label>
        <ScopePicker legend="App scopes" selected={scopes} onChange={setScopes} />
        <button type="submit">Create OAuth app</button>
      </form>
      <Alert text={actionError} />
      {secret && (
        <ShownOnce
          label={`Client secret of ${secret.clientId}`}
          secret={secret.clientSecret}
          testId="oauth-client-secret"
          onDone={() => setSecret(null)}
        />
      )}
    </section>
  );
}

function OAuthGrants() {
  const [grants, error, reload] = useLoad(
    () => ok(client.GET('/v1/oauth/grants', { params: { query: { limit: 100 } } })).then((r) => r.data as OAuthGrant[]),
    [],
  );
  const [actionError, setActionError] = useState<string | null>(null);
  const revoke = async (g: OAuthGrant) => {
    setActionError(null);
    try {
      await ok(client.DELETE('/v1/oauth/grants/{authorizationId}', { params: { path: { authorizationId: g.authorizationId } } }));
      reload();
    } catch (err) {
      setActionError(message(err));
    }
  };
  return (
    <section aria-labelledby="grants-h">
      <h2 id="grants-h">OAuth grants</h2>
      <Alert text={error ?? actionError} />
      <div className="scroll-x">
        <table aria-label="OAuth grants">
          <thead>
            <tr>
              <th>App</th>
              <th>User</th>
              <th>Scopes</th>
              <th>Granted</th>
              <th>Status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {grants?.map((g) => (
              <tr key={g.authorizationId} data-grant={g.authorizationId}>
                <td>{g.appName}</td>
                <td>
                  <code>{g.userId}</code>
                </td>
                <td className="muted">{g.scopes.join(', ')}</td>
                <td>{when(g.createdAt)}</td>
                <td>
                  <span className={`badge ${g.revokedAt ? 'bad' : 'ok'}`}>{g.revokedAt ? 'revoked' : 'active'}</span>
                </td>
                <td>
                  {!g.revokedAt && <Confirm label="Revoke" confirmLabel={`Revoke grant of ${g.appName}`} onConfirm={() => revoke(g)} />}
                </td>
              </tr>
            ))}
            {grants?.length === 0 && (
              <tr>
                <td colSpan={6} className="muted">
                  No grants yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export default function Credentials() {
  return (
    <>
      <ApiKeys />
      <OAuthApps />
      <OAuthGrants />
      <ConnectedApps />
    </>
  );
}
