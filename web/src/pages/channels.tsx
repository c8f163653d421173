/** Channel accounts: connect, choose the account, disconnect. */
import { useEffect, useState } from 'react';
import { type ChannelAccount, client, ok, type Platform } from '../client';
import { BrandPicker } from '../pickers';
import { Alert, message, useLoad } from '../ui';
import { loadBrands, loadChannels } from './loaders';

const PLATFORMS: Platform[] = ['x', 'facebook_page', 'instagram_business', 'instagram_standalone', 'threads', 'youtube', 'pinterest', 'tiktok'];

const STATE_CLASS: Record<string, string> = {
  connected: 'ok',
  expiring: 'warn',
  refresh_needed: 'warn',
  in_between_steps: 'warn',
  reconnect_required: 'bad',
  disabled: 'muted',
};

export function ChannelsPage() {
  const [channels, error, reload] = useLoad(loadChannels, []);
  const [brands] = useLoad(loadBrands, []);
  const [brandId, setBrandId] = useState('');
  const [platform, setPlatform] = useState<Platform>('x');
  const [note, setNote] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  useEffect(() => {
    const q = new URLSearchParams(window.location.search);
    const result = q.get('channelConnect');
    if (result) setNote(result === 'connected' ? `Connected ${q.get('platform')}.` : `Connect result: ${result} ${q.get('error') ?? ''}`);
  }, []);

  const connect = async (p: Platform, forBrand: string | null) => {
    setActionError(null);
    try {
      const r = await ok(
        client.POST('/v1/channel-accounts/connect-url', {
          body: { platform: p, brandId: forBrand || null, returnUrl: `${window.location.origin}/app/channels` },
        }),
      );
      window.location.assign(r.authorizationUrl);
    } catch (e) {
      setActionError(message(e));
    }
  };
  const disconnect = async (c: ChannelAccount) => {
    if (!window.confirm(`Disconnect ${c.displayName}? Scheduled posts to it will need attention.`)) return;
    try {
      const r = await ok(
        client.DELETE('/v1/channel-accounts/{channelAccountId}', {
          params: { path: { channelAccountId: c.channelAccountId } },
          body: { organizationId: c.organizationId, reason: 'disconnected in the dashboard' },
        }),
      );
      const s = r.disconnectSummary;
      setNote(
        s
          ? `Disconnected ${c.displayName}: ${s.cancelledPostTargetCount} scheduled targets cancelled, ${s.needsReconnectPostTargetCount} need reconnect, ${s.revokedChannelTokenCount} tokens revoked.`
          : `Disconnected ${c.displayName}.`,
      );
      reload();
    } catch (e) {
      setActionError(message(e));
    }
  };

  return (
    <section>
      <h1>Channels</h1>
      {note && <p role="status">{note}</p>}
      <Alert text={error ?? actionError} />
      <table>
        <thead>
          <tr>
            <th>Channel</th>
            <th>Platform</th>
            <th>Brand</th>
            <th>State</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {channels
            ?.filter((c) => c.state !== 'deleted')
            .map((c) => (
              <tr key={c.channelAccountId} data-channel={c.channelAccountId}>
                <td>
                  {c.displayName} {c.handle && <span className="muted">@{c.handle}</span>}
                </td>
                <td>{c.platform}</td>
                <td>{c.brandName ?? '—'}</td>
                <td>
                  <span className={`badge ${STATE_CLASS[c.state] ?? ''}`}>{c.state}</span>
                </td>
                <td className="actions">
                  {c.state !== 'connected' && (
                    <button type="button" onClick={() => connect(c.platform, c.brandId)}>
                      Reconnect
                    </button>
                  )}
                  {c.state !== 'disabled' && (
                    <button type="button" className="secondary" onClick={() => disconnect(c)}>
                      Disconnect
                    </button>
                  )}
                </td>
              </tr>
            ))}
        </tbody>
      </table>
      <form
        className="inline"
        aria-label="connect a channel"
        onSubmit={(e) => {
          e.preventDefault();
          void connect(platform, brandId || null);
        }}
      >
        <label>
          Platform
          <select aria-label="Platform" value={platform} onChange={(e) => setPlatform(e.target.value as Platform)}>
            {PLATFORMS.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </label>
        <BrandPicker brands={brands} value={brandId} onChange={setBrandId} emptyLabel="(none)" />
        <button type="submit">Connect</button>
      </form>
    </section>
  );
}
