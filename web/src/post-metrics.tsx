/**
 * A published post's numbers on its page: the latest stored snapshot per target
 * (GET /v1/analytics/snapshots?postTargetId) and "Refresh metrics", which reads them from the platform and
 * stores a snapshot (POST /v1/analytics/sync, dryRun false). Platforms without analytics sync say so.
 */
import { useState } from 'react';
import { client, ok, type PublishJob, type Schemas } from './client';
import { platformName } from './platforms';
import { useCan } from './session';
import { Alert, message, useLoad } from './ui';

type Snapshot = Schemas['AnalyticsSnapshot'];
type SyncPlatform = Snapshot['platform'];
const SYNC_PLATFORMS: readonly string[] = ['x', 'youtube', 'facebook_page', 'pinterest'] satisfies SyncPlatform[];

export function PostMetrics({ job }: { job: PublishJob }) {
  const can = useCan();
  const published = job.targets.filter((t) => t.state === 'published' && t.providerPostId);
  const [snapshots, error, reload] = useLoad(
    () =>
      Promise.all(
        published.map((t) =>
          ok(client.GET('/v1/analytics/snapshots', { params: { query: { postTargetId: t.postTargetId, limit: 1 } } })).then(
            (r) => [t.postTargetId, (r.data as Snapshot[])[0]] as const,
          ),
        ),
      ).then((pairs) => new Map(pairs)),
    [job.publishJobId, published.length],
  );
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  if (published.length === 0) return null;
  const refresh = async () => {
    setBusy(true);
    setActionError(null);
    setNote(null);
    try {
      for (const t of published) {
        if (!SYNC_PLATFORMS.includes(t.platform)) continue;
        await ok(
          client.POST('/v1/analytics/sync', {
            body: {
              organizationId: job.organizationId,
              brandId: job.brandId,
              channelAccountId: t.channelAccountId,
              platform: t.platform as SyncPlatform,
              providerPostId: t.providerPostId!,
              postTargetId: t.postTargetId,
              dryRun: false,
            },
          }),
        );
      }
      setNote('Metrics refreshed.');
      reload();
    } catch (e) {
      setActionError(message(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="metrics-h">
      <h2 id="metrics-h">Metrics</h2>
      {published.map((t) => {
        const s = snapshots?.get(t.postTargetId);
        const values = Object.entries(s?.metrics ?? {}).filter((e): e is [string, number] => typeof e[1] === 'number');
        return (
          <fieldset key={t.postTargetId} className="stats" aria-label={`metrics on ${platformName(t.platform)}`}>
            {!SYNC_PLATFORMS.includes(t.platform) && (
              <p className="muted">{platformName(t.platform)} does not share post metrics with us yet.</p>
            )}
            {SYNC_PLATFORMS.includes(t.platform) && !s && <p className="muted">No metrics read yet.</p>}
            {values.map(([name, value]) => (
              <div key={name} className="stat">
                <strong>{value.toLocaleString()}</strong>
                {name}
              </div>
            ))}
            {s && <p className="muted">as of {new Date(s.capturedAt).toLocaleString()}</p>}
          </fieldset>
        );
      })}
      {can('analytics.provider_sync.manage') && (
        <button type="button" className="secondary" onClick={refresh} disabled={busy}>
          {busy ? 'Refreshing…' : 'Refresh metrics'}
        </button>
      )}
      {note && <p role="status">{note}</p>}
      <Alert text={error ?? actionError} />
    </section>
  );
}
