/**
 * Channel accounts: connect (the platform's consent, then back here), choose the account of a channel
 * that needs one (the Facebook Page choice), reconnect, disconnect. Connecting and disconnecting take
 * the workspace.brands.initialize policy (admins); people whose role cannot are not shown the buttons.
 */
import { useEffect, useState } from 'react';
import { type ChannelAccount, client, ok, type Platform, type Schemas } from '../client';
import { BrandPicker } from '../pickers';
import { PLATFORMS, PlatformLabel, platformName } from '../platforms';
import { useCan } from '../session';
import { Alert, ConfirmDialog, Empty, Loading, message, useLoad } from '../ui';
import { loadBrands, loadChannels } from './loaders';

const SETUP = 'workspace.brands.initialize';

const STATE_CLASS: Record<string, string> = {
  connected: 'ok',
  expiring: 'warn',
  refresh_needed: 'warn',
  in_between_steps: 'warn',
  reconnect_required: 'bad',
  disabled: 'muted',
};
const STATE_LABEL: Record<string, string> = {
  connected: 'Connected',
  expiring: 'Expiring soon',
  refresh_needed: 'Refreshing',
  in_between_steps: 'Choose the account',
  reconnect_required: 'Reconnect needed',
  disabled: 'Disabled',
};

type Choice = Schemas['ChannelChoiceList']['data'][number];

/** The accounts a channel in in_between_steps can become (e.g. the Pages a Facebook login manages). */
function AccountChoice({ channel, onDone }: { channel: ChannelAccount; onDone: (note: string) => void }) {
  const [choices, error] = useLoad(
    () =>
      ok(
        client.GET('/v1/channel-accounts/{channelAccountId}/choices', { params: { path: { channelAccountId: channel.channelAccountId } } }),
      ).then((r) => r.data as Choice[]),
    [channel.channelAccountId],
  );
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  const select = async (choice: Choice) => {
    setBusy(true);
    setActionError(null);
    try {
      await ok(
        client.POST('/v1/channel-accounts/{channelAccountId}/select', {
          params: { path: { channelAccountId: channel.channelAccountId } },
          body: { organizationId: channel.organizationId, externalAccountId: choice.externalAccountId },
        }),
      );
      onDone(`Connected ${choice.displayName} (${platformName(channel.platform)}).`);
    } catch (e) {
      setActionError(message(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <fieldset className="panel" aria-label={`choose the account for ${channel.displayName}`}>
      <strong>Which {channel.platform === 'facebook_page' ? 'Page' : 'account'} should this channel post to?</strong>
      <Alert text={error ?? actionError} />
      {!choices && !error && <Loading what="Loading the accounts" />}
      {choices?.length === 0 && <p className="muted">The platform offered no account. Reconnect and grant access to one.</p>}
      <ul className="choices">
        {choices?.map((c) => (
          <li key={c.externalAccountId}>
            <button type="button" disabled={busy} onClick={() => void select(c)}>
              {c.displayName}
              {c.handle ? ` (@${c.handle})` : ''}
            </button>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

export function ChannelsPage() {
  const can = useCan();
  const canSetUp = can(SETUP);
  const [channels, error, reload] = useLoad(loadChannels, []);
  const [brands] = useLoad(loadBrands, []);
  const [brandId, setBrandId] = useState('');
  const [platform, setPlatform] = useState<Platform>('x');
  const [note, setNote] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [toDisconnect, setToDisconnect] = useState<ChannelAccount | null>(null);

  useEffect(() => {
    const q = new URLSearchParams(window.location.search);
    const result = q.get('channelConnect');
    const name = platformName(q.get('platform') ?? '');
    if (result === 'connected') setNote(`Connected ${name}.`);
    else if (result === 'in_between_steps') setNote(`Almost there: choose which ${name} account this channel posts to.`);
    else if (result) setActionError(`${name} was not connected: ${q.get('error') ?? 'the platform refused'}. Try again.`);
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
    setToDisconnect(null);
    setActionError(null);
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
          ? `Disconnected ${c.displayName}: ${s.cancelledPostTargetCount} scheduled posts cancelled, ${s.needsReconnectPostTargetCount} need a reconnect, ${s.revokedChannelTokenCount} tokens revoked.`
          : `Disconnected ${c.displayName}.`,
      );
      reload();
    } catch (e) {
      setActionError(message(e));
    }
  };

  const live = channels?.filter((c) => c.state !== 'deleted');
  return (
    <section>
      <h1>Channels</h1>
      {note && <p role="status">{note}</p>}
      <Alert text={error ?? actionError} />
      {!channels && !error && <Loading what="Loading channels" />}
      {live?.length === 0 && (
        <Empty title="No channels yet.">
          {canSetUp ? 'Connect your first account below.' : 'Ask an admin of your organization to connect the accounts you post to.'}
        </Empty>
      )}
      {live && live.length > 0 && (
        <div className="scroll-x">
          <table>
            <thead>
              <tr>
                <th>Channel</th>
                <th>Platform</th>
                <th>Brand</th>
                <th>State</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {live.map((c) => (
                <tr key={c.channelAccountId} data-channel={c.channelAccountId}>
                  <td>
                    {c.displayName} {c.handle && <span className="muted">@{c.handle}</span>}
                    {c.state === 'in_between_steps' && canSetUp && (
                      <AccountChoice
                        channel={c}
                        onDone={(n) => {
                          setNote(n);
                          reload();
                        }}
                      />
                    )}
                  </td>
                  <td>
                    <PlatformLabel platform={c.platform} />
                  </td>
                  <td>{c.brandName ?? '—'}</td>
                  <td>
                    <span className={`badge ${STATE_CLASS[c.state] ?? ''}`}>{STATE_LABEL[c.state] ?? c.state}</span>
                  </td>
                  <td className="actions">
                    {canSetUp && c.state !== 'connected' && c.state !== 'in_between_steps' && (
                      <button type="button" onClick={() => connect(c.platform, c.brandId)}>
                        Reconnect
                      </button>
                    )}
                    {canSetUp && c.state !== 'disabled' && (
                      <button type="button" className="secondary" onClick={() => setToDisconnect(c)}>
                        Disconnect
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canSetUp ? (
        <form
          className="inline panel"
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
                <option key={p} value={p}>
                  {platformName(p)}
                </option>
              ))}
            </select>
          </label>
          <BrandPicker brands={brands} value={brandId} onChange={setBrandId} emptyLabel="(no brand)" />
          <button type="submit">Connect</button>
        </form>
      ) : (
        <p className="muted">Connecting and disconnecting channels is for admins of your organization.</p>
      )}
      <ConfirmDialog
        open={toDisconnect !== null}
        title={`Disconnect ${toDisconnect?.displayName ?? ''}?`}
        confirmLabel="Disconnect"
        danger
        onConfirm={() => toDisconnect && void disconnect(toDisconnect)}
        onCancel={() => setToDisconnect(null)}
      >
        <p>Scheduled posts to this channel are cancelled or marked as needing a reconnect, and its access is revoked at the platform.</p>
      </ConfirmDialog>
    </section>
  );
}
