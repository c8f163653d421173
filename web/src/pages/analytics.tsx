/**
 * Analytics from the stored snapshots (GET /v1/analytics/snapshots; a post page's "Refresh metrics" or the
 * analytics worker stores them). Snapshots are cumulative readings, so the latest one per post counts.
 * The charts are small SVG bar charts (no chart library: ~1 KB instead of a 50+ KB dependency) with
 * totals and a data table carrying the same numbers for screen readers and keyboard users.
 */
import { useCallback, useMemo, useState } from 'react';
import { type ChannelAccount, client, ok, type PublishJob, type Schemas } from '../client';
import { BrandPicker } from '../pickers';
import { PlatformLabel, platformName } from '../platforms';
import { Alert, Empty, Loading, useLoad } from '../ui';
import { loadBrands, loadChannels } from './loaders';

type AnalyticsSnapshot = Schemas['AnalyticsSnapshot'];

/** Horizontal bars, the value at the end of each bar, labels wide enough to read a post's first words. */
function BarChart({ title, bars }: { title: string; bars: Array<{ key: string; label: string; value: number }> }) {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const rowH = 34;
  const labelW = 200;
  const barW = 200;
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <svg role="img" aria-label={title} viewBox={`0 0 470 ${bars.length * rowH + 4}`} width="100%" preserveAspectRatio="xMinYMin meet">
        {bars.map((b, i) => (
          <g key={b.key} transform={`translate(0 ${i * rowH})`}>
            <rect className="bar-track" x={labelW} y="6" height={rowH - 12} width={barW} rx="3" />
            <rect className={`bar bar-${i % 4}`} x={labelW} y="6" height={rowH - 12} width={Math.max(2, (barW * b.value) / max)} rx="3" />
            <text className="bar-label" x={labelW - 8} y={rowH / 2 + 5} textAnchor="end">
              {b.label.length > 22 ? `${b.label.slice(0, 21)}…` : b.label}
            </text>
            <text className="bar-value" x={labelW + barW + 6} y={rowH / 2 + 5}>
              {b.value}
            </text>
          </g>
        ))}
      </svg>
    </figure>
  );
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
/** Post texts by post target, from the publish jobs (a snapshot carries ids only). */
function textsByTarget(jobs: PublishJob[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const j of jobs) for (const t of j.targets) m.set(t.postTargetId, t.text || j.text);
  return m;
}
// the metric shown first when the snapshots have it
const PREFERRED = ['views', 'impressions', 'likes', 'reach'];

export default function AnalyticsPage() {
  const [brands] = useLoad(loadBrands, []);
  const [channels] = useLoad(loadChannels, []);
  const [brandId, setBrandId] = useState('');
  const [days, setDays] = useState(30);
  const [snapshots, error] = useLoad(() => {
    const q = new URLSearchParams({ from: new Date(Date.now() - days * 86400_000).toISOString(), to: new Date().toISOString() });
    if (brandId) q.set('brandId', brandId);
    return ok(
      client.GET('/v1/analytics/snapshots', {
        params: { query: { limit: 100, from: q.get('from')!, to: q.get('to')!, ...(brandId ? { brandId } : {}) } },
      }),
    ).then((r) => r.data as AnalyticsSnapshot[]);
  }, [brandId, days]);
  const [jobs] = useLoad(
    () =>
      ok(client.GET('/v1/publish/jobs', { params: { query: { limit: 100, status: 'published', ...(brandId ? { brandId } : {}) } } })).then(
        (r) => r.data as PublishJob[],
      ),
    [brandId],
  );
  const texts = useMemo(() => textsByTarget(jobs ?? []), [jobs]);
  const postText = (s: AnalyticsSnapshot) =>
    (s.postTargetId ? texts.get(s.postTargetId) : undefined) ?? `A ${platformName(s.platform)} post`;
  const list = snapshots ?? [];
  const metricNames = useMemo(
    () =>
      [
        ...new Set(
          list.flatMap((s) =>
            Object.entries(s.metrics ?? {})
              .filter(([, v]) => typeof v === 'number')
              .map(([k]) => k),
          ),
        ),
      ].sort(),
    [list],
  );
  const [metric, setMetric] = useState('');
  const active = metric && metricNames.includes(metric) ? metric : (PREFERRED.find((m) => metricNames.includes(m)) ?? metricNames[0] ?? '');
  // The latest snapshot per post counts (snapshots are cumulative readings).
  const latestPerPost = useMemo(() => {
    const m = new Map<string, AnalyticsSnapshot>();
    for (const s of list) {
      const key = s.postTargetId ?? s.providerPostId;
      const prev = m.get(key);
      if (!prev || prev.capturedAt < s.capturedAt) m.set(key, s);
    }
    return [...m.values()];
  }, [list]);
  const channelName = useCallback(
    (id?: string | null) => channels?.find((c: ChannelAccount) => c.channelAccountId === id)?.displayName ?? id ?? '—',
    [channels],
  );
  const perChannel = useMemo(() => {
    const m = new Map<string, number>();
    for (const s of latestPerPost)
      m.set(channelName(s.channelAccountId), (m.get(channelName(s.channelAccountId)) ?? 0) + num(s.metrics?.[active]));
    return [...m.entries()].map(([label, value]) => ({ key: label, label, value }));
  }, [latestPerPost, active, channelName]);
  const perPost = latestPerPost
    .map((s) => ({ key: s.postTargetId ?? s.providerPostId, label: postText(s), value: num(s.metrics?.[active]) }))
    .sort((a, b) => b.value - a.value)
    .slice(0, 10);

  return (
    <section>
      <h1>Analytics</h1>
      <div className="inline">
        <BrandPicker brands={brands} value={brandId} onChange={setBrandId} emptyLabel="All brands" />
        <label>
          Period
          <select aria-label="Period" value={days} onChange={(e) => setDays(Number(e.target.value))}>
            <option value={7}>Last 7 days</option>
            <option value={30}>Last 30 days</option>
            <option value={90}>Last 90 days</option>
          </select>
        </label>
        {metricNames.length > 0 && (
          <label>
            Metric
            <select aria-label="Metric" value={active} onChange={(e) => setMetric(e.target.value)}>
              {metricNames.map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          </label>
        )}
      </div>
      <Alert text={error} />
      {!snapshots && !error && <Loading what="Loading metrics" />}
      {snapshots && list.length === 0 && (
        <Empty title="No metrics in this period yet.">
          Open a published post and choose Refresh metrics, or wait for the next automatic reading.
        </Empty>
      )}
      {list.length > 0 && (
        <fieldset className="stats" aria-label="totals">
          {metricNames.map((m) => (
            <div key={m} className="stat" data-metric={m}>
              <strong>{latestPerPost.reduce((sum, s) => sum + num(s.metrics?.[m]), 0).toLocaleString()}</strong>
              {m}
            </div>
          ))}
          <div className="stat">
            <strong>{latestPerPost.length}</strong>
            posts
          </div>
        </fieldset>
      )}
      {list.length > 0 && (
        <div className="charts">
          <BarChart title={`${active} per channel`} bars={perChannel} />
          <BarChart title={`${active}: top posts`} bars={perPost} />
          <div className="scroll-x wide">
            <table aria-label="post metrics">
              <thead>
                <tr>
                  <th>Post</th>
                  <th>Channel</th>
                  <th>Platform</th>
                  {metricNames.map((m) => (
                    <th key={m}>{m}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {latestPerPost.map((s) => (
                  <tr key={s.analyticsSnapshotId}>
                    <td className="post-cell" title={s.providerPostId}>
                      {postText(s).slice(0, 120)}
                    </td>
                    <td>{channelName(s.channelAccountId)}</td>
                    <td>
                      <PlatformLabel platform={s.platform} />
                    </td>
                    {metricNames.map((m) => (
                      <td key={m}>{num(s.metrics?.[m])}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </section>
  );
}
