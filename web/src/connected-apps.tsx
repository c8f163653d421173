/**
 * Developers page, "Connected apps": the MCP clients (self-registered OAuth clients) people of the
 * organization connected, with the scopes they were given; an admin disconnects one, which ends every
 * token issued to it for this organization.
 */
import { useState } from 'react';
import { client, ok, type Schemas } from './client';
import { Alert, message, useLoad } from './ui';

type Connected = Schemas['OAuthConnectedClient'];

export default function ConnectedApps() {
  const [apps, error, reload] = useLoad(() => ok(client.GET('/v1/oauth/connected-clients')).then((r) => r.data as Connected[]), []);
  const [actionError, setActionError] = useState<string | null>(null);
  const [asking, setAsking] = useState<string | null>(null);
  const disconnect = async (a: Connected) => {
    setAsking(null);
    setActionError(null);
    try {
      await ok(client.DELETE('/v1/oauth/connected-clients/{oauthAppId}', { params: { path: { oauthAppId: a.oauthAppId } } }));
      reload();
    } catch (err) {
      setActionError(message(err));
    }
  };
  return (
    <section aria-labelledby="connected-h">
      <h2 id="connected-h">Connected apps</h2>
      <p className="muted">MCP clients (such as Claude or an agent) that signed in to this organization through the /mcp endpoint.</p>
      <Alert text={error ?? actionError} />
      <ul className="list" aria-label="Connected apps">
        {apps?.map((a) => (
          <li key={a.oauthAppId} data-connected-app={a.oauthAppId}>
            <strong>{a.name}</strong> <span className="muted">(name given by the app)</span>
            <div className="muted">
              {a.scopes.join(', ')} · connected {new Date(a.connectedAt).toLocaleString()} by {a.userIds.length}{' '}
              {a.userIds.length === 1 ? 'person' : 'people'} · redirects to {a.redirectUris.map((u) => new URL(u).origin).join(', ')}
            </div>
            {asking === a.oauthAppId ? (
              <fieldset className="buttons" aria-label={`Disconnect ${a.name}`}>
                <button type="button" className="danger" onClick={() => void disconnect(a)}>
                  Disconnect {a.name}
                </button>
                <button type="button" className="secondary" onClick={() => setAsking(null)}>
                  Keep
                </button>
              </fieldset>
            ) : (
              <button type="button" className="secondary" onClick={() => setAsking(a.oauthAppId)}>
                Disconnect
              </button>
            )}
          </li>
        ))}
        {apps?.length === 0 && <li className="muted">No connected apps.</li>}
      </ul>
    </section>
  );
}
