/**
 * Settings: the signed-in person's tool API keys (UTM builder, QR codes). Tool keys belong to a person and
 * follow their membership tier (Basic has no tool API access); scopes limit which tools a key can call.
 * The full key is in the create answer only, so it is shown once.
 */
import { type FormEvent, useState } from 'react';
import { client, ok, type Schemas } from '../client';
import { Confirm, ShownOnce } from '../credentials';
import { useMe } from '../session';
import { Alert, Empty, Loading, message, useLoad } from '../ui';

type ToolKey = Schemas['ToolApiKey'];
type ToolScope = NonNullable<Schemas['ToolApiKeyCreateRequest']['scopes']>[number];

const SCOPE_LABELS: Record<string, string> = {
  'tools:utm-builder:build': 'UTM link builder',
  'tools:qrcode:generate': 'QR code generator',
};
const TIER_NAMES: Record<string, string> = { basic: 'Basic', pro: 'Pro', max: 'Max' };
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

function ToolKeys() {
  const [list, error, reload] = useLoad(() => ok(client.GET('/v1/me/tool-keys', {})), []);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ToolScope[]>(['tools:utm-builder:build', 'tools:qrcode:generate']);
  const [secret, setSecret] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  const create = async (e: FormEvent) => {
    e.preventDefault();
    setActionError(null);
    setNote(null);
    if (scopes.length === 0) return setActionError('Choose at least one tool the key may call.');
    try {
      const created = await ok(client.POST('/v1/me/tool-keys', { body: { name: name || undefined, scopes } }));
      setSecret(created.apiKey);
      setName('');
      reload();
    } catch (err) {
      setActionError(message(err));
    }
  };
  const revoke = async (k: ToolKey) => {
    setActionError(null);
    try {
      await ok(client.DELETE('/v1/me/tool-keys/{toolApiKeyId}', { params: { path: { toolApiKeyId: k.apiKeyId } } }));
      setNote(`Tool API key ${k.name} revoked: requests with it are refused from now on.`);
      reload();
    } catch (err) {
      setActionError(message(err));
    }
  };

  if (!list && !error) return <Loading what="Loading your tool API keys" />;
  return (
    <section aria-labelledby="tool-keys">
      <h2 id="tool-keys">Tool API keys</h2>
      <Alert text={error} />
      {list && (
        <p className="muted">
          Your plan: <strong>{TIER_NAMES[list.tier] ?? list.tier}</strong>
          {list.limits
            ? ` · ${list.limits.utmLinksPerDay.toLocaleString()} UTM links and ${list.limits.qrCodesPerDay.toLocaleString()} QR codes a day, ${list.limits.requestsPerMinute} requests a minute.`
            : ' · no tool API access. Ask your administrator to move you to Pro or Max.'}
        </p>
      )}
      {note && <p role="status">{note}</p>}
      <Alert text={actionError} />
      {secret && <ShownOnce label="Your new tool API key" secret={secret} testId="new-tool-key" onDone={() => setSecret(null)} />}
      {list && list.data.length === 0 && (
        <Empty title="No tool API keys yet.">Create one below to call the UTM builder or the QR code generator from your own tools.</Empty>
      )}
      {list && list.data.length > 0 && (
        <div className="scroll-x">
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Key</th>
                <th>Tools</th>
                <th>Last used</th>
                <th>Status</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((k) => (
                <tr key={k.apiKeyId} data-tool-key={k.apiKeyId}>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.maskedKey}</code>
                  </td>
                  <td>{k.scopes.map((s) => SCOPE_LABELS[s] ?? s).join(', ')}</td>
                  <td>{when(k.lastUsedAt)}</td>
                  <td>
                    <span className={`badge ${k.status === 'active' ? 'ok' : 'muted'}`}>
                      {k.status === 'active' ? 'Active' : 'Revoked'}
                    </span>
                  </td>
                  <td>
                    {k.status === 'active' && <Confirm label="Revoke" confirmLabel={`Revoke ${k.name}`} onConfirm={() => revoke(k)} />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list?.apiAccess && (
        <form onSubmit={create} aria-label="new tool API key" className="panel">
          <label>
            Key name
            <input value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. Newsletter spreadsheet" maxLength={120} />
          </label>
          <fieldset>
            <legend>Tools this key may call</legend>
            {(['tools:utm-builder:build', 'tools:qrcode:generate'] as ToolScope[]).map((s) => (
              <label key={s} className="check">
                <input
                  type="checkbox"
                  checked={scopes.includes(s)}
                  onChange={(e) => setScopes(e.target.checked ? [...scopes, s] : scopes.filter((x) => x !== s))}
                />
                {SCOPE_LABELS[s]}
              </label>
            ))}
          </fieldset>
          <button type="submit">Create tool API key</button>
        </form>
      )}
    </section>
  );
}

export default function SettingsPage() {
  const me = useMe();
  return (
    <section>
      <h1>Settings</h1>
      {me?.user ? (
        <ToolKeys />
      ) : (
        <Empty title="Settings belong to a person.">Sign in with your email and password to manage your tool API keys.</Empty>
      )}
    </section>
  );
}
