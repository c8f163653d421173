import { type DragEvent, type FormEvent, useEffect, useMemo, useState } from 'react';
import {
  type Brand,
  type ChannelAccount,
  client,
  ok,
  type Platform,
  type PlanPreview,
  type PublishJob,
  type PublishRequest,
  uploadMedia,
} from './client';
import { PostMetrics } from './post-metrics';
import { Alert, message, useLoad } from './ui';

const PLATFORMS: Platform[] = ['x', 'facebook_page', 'instagram_business', 'instagram_standalone', 'threads', 'youtube', 'pinterest', 'tiktok'];
export const loadBrands = () => ok(client.GET('/v1/brands', { params: { query: { includeProducts: true } } })).then((r) => r.data as Brand[]);
export const loadChannels = () => ok(client.GET('/v1/channel-accounts', {})).then((r) => r.data as ChannelAccount[]);

export function BrandsPage() {
  const [brands, error, reload] = useLoad(loadBrands, []);
  const [name, setName] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const create = async (e: FormEvent) => {
    e.preventDefault();
    try {
      await ok(client.POST('/v1/brands' as never, { body: { name } } as never));
      setName('');
      reload();
    } catch (err) {
      setFormError(message(err));
    }
  };
  return (
    <section>
      <h1>Brands</h1>
      <Alert text={error} />
      <ul className="list">
        {brands?.map((b) => (
          <li key={b.brandId}>
            <strong>{b.name}</strong> <span className="muted">{b.slug} · {b.timezone}</span>
            {b.products && b.products.length > 0 && <div className="muted">Products: {b.products.map((p) => p.name).join(', ')}</div>}
          </li>
        ))}
        {brands?.length === 0 && <li className="muted">No brands yet.</li>}
      </ul>
      <form onSubmit={create} className="inline" aria-label="new brand">
        <label>
          New brand
          <input value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <button type="submit">Create brand</button>
      </form>
      <Alert text={formError} />
    </section>
  );
}

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
        <label>
          Brand
          <select aria-label="Brand" value={brandId} onChange={(e) => setBrandId(e.target.value)}>
            <option value="">(none)</option>
            {brands?.map((b) => (
              <option key={b.brandId} value={b.brandId}>
                {b.name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Connect</button>
      </form>
    </section>
  );
}

function toLocalInput(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function ComposerPage({ navigate }: { navigate: (to: string) => void }) {
  const [brands] = useLoad(loadBrands, []);
  const [channels] = useLoad(loadChannels, []);
  const [brandId, setBrandId] = useState('');
  const [text, setText] = useState('');
  const [selected, setSelected] = useState<string[]>([]);
  const [firstComment, setFirstComment] = useState('');
  const [when, setWhen] = useState<'now' | 'schedule'>('now');
  const [scheduleAt, setScheduleAt] = useState(() => toLocalInput(new Date(Date.now() + 3600_000)));
  const [media, setMedia] = useState<Array<{ id: string; name: string; kind: 'image' | 'video' | 'gif'; url: string; mimeType?: string }>>([]);
  const [progress, setProgress] = useState<number | null>(null);
  const [preview, setPreview] = useState<PlanPreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!brandId && brands?.[0]) setBrandId(brands[0].brandId);
  }, [brands, brandId]);
  const usable = useMemo(() => (channels ?? []).filter((c) => c.state === 'connected' && (!c.brandId || c.brandId === brandId)), [channels, brandId]);

  const plan = useMemo((): PublishRequest['plan'] | null => {
    if (!brandId) return null;
    const targets = usable
      .filter((c) => selected.includes(c.channelAccountId))
      .map((c) => ({
        channelAccountId: c.channelAccountId,
        platform: c.platform,
        ...(firstComment ? { settings: { firstComment: { content: firstComment, delayMs: 0 } } } : {}),
      }));
    return {
      brandId,
      text,
      targets,
      mediaLibraryItemIds: media.map((m) => m.id),
      ...(when === 'schedule' && scheduleAt ? { scheduleAt: new Date(scheduleAt).toISOString() } : {}),
    };
  }, [brandId, text, usable, selected, firstComment, media, when, scheduleAt]);

  useEffect(() => {
    if (!plan || plan.targets?.length === 0) return setPreview(null);
    const t = setTimeout(() => {
      const { mediaLibraryItemIds: _ids, scheduleAt: _at, ...rest } = plan;
      const previewMedia = media.map((m) => ({ kind: m.kind, url: m.url, mediaLibraryItemId: m.id, ...(m.mimeType ? { mimeType: m.mimeType } : {}) }));
      ok(client.POST('/v1/publish/plans/preview', { body: { ...rest, media: previewMedia } as never })).then(
        (p) => (setPreview(p), setError(null)),
        (e) => setError(message(e)),
      );
    }, 250);
    return () => clearTimeout(t);
  }, [plan, media]);

  const onFiles = async (files: FileList | null) => {
    if (!files || !brandId) return;
    for (const f of Array.from(files)) {
      setProgress(0);
      try {
        const item = await uploadMedia(f, brandId, setProgress);
        setMedia((m) => [
          ...m,
          { id: item.mediaLibraryItemId, name: f.name, kind: item.kind, url: item.publicUrl ?? '', mimeType: item.mimeType ?? undefined },
        ]);
      } catch (e) {
        setError(message(e));
      } finally {
        setProgress(null);
      }
    }
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!plan) return;
    setBusy(true);
    setError(null);
    try {
      const job = (await ok(client.POST('/v1/publish/jobs', { body: { dryRun: false, enqueue: true, plan } }))) as unknown as { publishJobId: string };
      navigate(`/posts/${job.publishJobId}`);
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section>
      <h1>Compose</h1>
      <form onSubmit={submit} aria-label="composer" className="composer">
        <label>
          Brand
          <select aria-label="Brand" value={brandId} onChange={(e) => setBrandId(e.target.value)}>
            {brands?.map((b) => (
              <option key={b.brandId} value={b.brandId}>
                {b.name}
              </option>
            ))}
          </select>
        </label>
        <fieldset>
          <legend>Channels</legend>
          {usable.length === 0 && <p className="muted">No connected channel for this brand.</p>}
          {usable.map((c) => (
            <label key={c.channelAccountId} className="check">
              <input
                type="checkbox"
                checked={selected.includes(c.channelAccountId)}
                onChange={(e) =>
                  setSelected((s) => (e.target.checked ? [...s, c.channelAccountId] : s.filter((x) => x !== c.channelAccountId)))
                }
              />
              {c.displayName} ({c.platform})
            </label>
          ))}
        </fieldset>
        <label>
          Text
          <textarea rows={5} value={text} onChange={(e) => setText(e.target.value)} aria-describedby="compose-validation" />
        </label>
        <div
          className="drop"
          onDragOver={(e: DragEvent) => e.preventDefault()}
          onDrop={(e: DragEvent) => {
            e.preventDefault();
            void onFiles(e.dataTransfer.files);
          }}
        >
          <label>
            Media (drop files here or choose)
            <input type="file" multiple accept="image/*,video/*" onChange={(e) => void onFiles(e.target.files)} />
          </label>
          {progress !== null && <progress aria-label="upload progress" value={progress} max={1} />}
          <ul>
            {media.map((m) => (
              <li key={m.id}>{m.name}</li>
            ))}
          </ul>
        </div>
        <label>
          First comment
          <input value={firstComment} onChange={(e) => setFirstComment(e.target.value)} />
        </label>
        <fieldset>
          <legend>When</legend>
          <label className="check">
            <input type="radio" name="when" checked={when === 'now'} onChange={() => setWhen('now')} /> Publish now
          </label>
          <label className="check">
            <input type="radio" name="when" checked={when === 'schedule'} onChange={() => setWhen('schedule')} /> Schedule
          </label>
          {when === 'schedule' && (
            <label>
              Schedule at
              <input type="datetime-local" value={scheduleAt} onChange={(e) => setScheduleAt(e.target.value)} />
            </label>
          )}
        </fieldset>
        {preview && (
          <div id="compose-validation" role="status" aria-label="validation" className={preview.valid ? 'ok-box' : 'bad-box'}>
            {preview.targets.map((t) => (
              <div key={t.index}>
                <strong>{t.platform}</strong>: {t.textLength}
                {t.maxTextLength ? ` / ${t.maxTextLength}` : ''} characters
                {t.issues.map((i) => (
                  <div key={i.code + i.path.join('.')} className={i.severity === 'blocking' ? 'error' : 'muted'}>
                    {i.message}
                  </div>
                ))}
              </div>
            ))}
            {preview.issues
              .filter((i) => i.targetIndex === null)
              .map((i) => (
                <div key={i.code} className="error">
                  {i.message}
                </div>
              ))}
            <div>{preview.valid ? 'Ready to publish.' : 'Fix the issues above.'}</div>
          </div>
        )}
        <Alert text={error} />
        <button type="submit" disabled={busy || !preview?.valid}>
          {when === 'now' ? 'Publish now' : 'Schedule'}
        </button>
      </form>
    </section>
  );
}

const STATUS_CLASS: Record<string, string> = {
  published: 'ok',
  scheduled: 'info',
  queued: 'info',
  publishing: 'info',
  partially_published: 'warn',
  needs_attention: 'warn',
  needs_reconnect: 'bad',
  failed: 'bad',
  cancelled: 'muted',
};

function startOfWeek(d: Date): Date {
  const x = new Date(d.getFullYear(), d.getMonth(), d.getDate());
  x.setDate(x.getDate() - ((x.getDay() + 6) % 7));
  return x;
}
const dayKey = (d: Date) => `${d.getFullYear()}-${d.getMonth() + 1}-${d.getDate()}`;
const jobTime = (j: PublishJob) => new Date(j.scheduledAt ?? j.createdAt);

export function CalendarPage({ navigate }: { navigate: (to: string) => void }) {
  const [view, setView] = useState<'week' | 'month'>('week');
  const [anchor, setAnchor] = useState(() => new Date());
  const [error, setError] = useState<string | null>(null);
  const days = useMemo(() => {
    const first =
      view === 'week' ? startOfWeek(anchor) : startOfWeek(new Date(anchor.getFullYear(), anchor.getMonth(), 1));
    const n = view === 'week' ? 7 : 42;
    return Array.from({ length: n }, (_, i) => new Date(first.getFullYear(), first.getMonth(), first.getDate() + i));
  }, [view, anchor]);
  const from = days[0]!;
  const to = new Date(days[days.length - 1]!.getTime() + 86400_000);
  const [jobs, loadError, reload] = useLoad(
    () =>
      ok(client.GET('/v1/publish/jobs', { params: { query: { from: from.toISOString(), to: to.toISOString(), limit: 100 } } })).then(
        (r) => r.data as PublishJob[],
      ),
    [from.getTime(), to.getTime()],
  );
  const byDay = useMemo(() => {
    const m = new Map<string, PublishJob[]>();
    for (const j of jobs ?? []) {
      const k = dayKey(jobTime(j));
      m.set(k, [...(m.get(k) ?? []), j]);
    }
    return m;
  }, [jobs]);

  const move = (step: number) =>
    setAnchor((a) => (view === 'week' ? new Date(a.getFullYear(), a.getMonth(), a.getDate() + 7 * step) : new Date(a.getFullYear(), a.getMonth() + step, 1)));

  const drop = async (e: DragEvent, day: Date) => {
    e.preventDefault();
    const id = e.dataTransfer.getData('text/plain');
    const job = jobs?.find((j) => j.publishJobId === id);
    if (!job) return;
    const old = jobTime(job);
    const at = new Date(day.getFullYear(), day.getMonth(), day.getDate(), old.getHours(), old.getMinutes());
    setError(null);
    try {
      await ok(
        client.POST('/v1/publish/jobs/{publishJobId}/schedule', {
          params: { path: { publishJobId: id } },
          body: { scheduleAt: at.toISOString() },
        }),
      );
      reload();
    } catch (err) {
      setError(message(err));
    }
  };

  const title =
    view === 'week'
      ? `Week of ${from.toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' })}`
      : anchor.toLocaleDateString(undefined, { month: 'long', year: 'numeric' });

  return (
    <section>
      <h1>Calendar</h1>
      <div className="toolbar">
        <button type="button" className="secondary" onClick={() => move(-1)} aria-label="previous">
          ‹
        </button>
        <h2>{title}</h2>
        <button type="button" className="secondary" onClick={() => move(1)} aria-label="next">
          ›
        </button>
        <button type="button" className="secondary" onClick={() => setAnchor(new Date())}>
          Today
        </button>
        <button type="button" aria-pressed={view === 'week'} onClick={() => setView('week')}>
          Week
        </button>
        <button type="button" aria-pressed={view === 'month'} onClick={() => setView('month')}>
          Month
        </button>
      </div>
      <Alert text={loadError ?? error} />
      <div className={`grid ${view}`}>
        {days.map((d) => (
          <div
            key={d.getTime()}
            className="day"
            data-day={`${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`}
            onDragOver={(e) => e.preventDefault()}
            onDrop={(e) => void drop(e, d)}
          >
            <div className="date">{d.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric' })}</div>
            {byDay.get(dayKey(d))?.map((j) => (
              <button
                type="button"
                key={j.publishJobId}
                className={`post ${STATUS_CLASS[j.status] ?? ''}`}
                draggable={j.status === 'scheduled'}
                onDragStart={(e) => e.dataTransfer.setData('text/plain', j.publishJobId)}
                onClick={() => navigate(`/posts/${j.publishJobId}`)}
                data-job={j.publishJobId}
                title={j.status}
              >
                {jobTime(j).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })} {j.text.slice(0, 40)}
                <span className="status">{j.status}</span>
              </button>
            ))}
          </div>
        ))}
      </div>
    </section>
  );
}

export function PostPage({ publishJobId, navigate }: { publishJobId: string; navigate: (to: string) => void }) {
  const [job, error, reload] = useLoad(
    () => ok(client.GET('/v1/publish/jobs/{publishJobId}', { params: { path: { publishJobId } } })),
    [publishJobId],
  );
  const [actionError, setActionError] = useState<string | null>(null);
  const pending = job && ['scheduled', 'queued', 'publishing'].includes(job.status);
  useEffect(() => {
    if (!pending) return;
    const t = setInterval(reload, 1000);
    return () => clearInterval(t);
  }, [pending, reload]);
  const cancel = async () => {
    try {
      await ok(client.POST('/v1/publish/jobs/{publishJobId}/cancel', { params: { path: { publishJobId } }, body: { reason: 'cancelled in the dashboard' } }));
      reload();
    } catch (e) {
      setActionError(message(e));
    }
  };
  return (
    <section>
      <h1>Post</h1>
      <Alert text={error ?? actionError} />
      {job && (
        <>
          <p>
            Status: <span className={`badge ${STATUS_CLASS[job.status] ?? ''}`} data-testid="job-status">{job.status}</span>
            {job.scheduledAt && <> · scheduled {new Date(job.scheduledAt).toLocaleString()}</>}
          </p>
          <blockquote>{job.text}</blockquote>
          <table>
            <thead>
              <tr>
                <th>Platform</th>
                <th>State</th>
                <th>Error</th>
                <th>Link</th>
              </tr>
            </thead>
            <tbody>
              {job.targets.map((t) => (
                <tr key={t.postTargetId}>
                  <td>{t.platform}</td>
                  <td>
                    <span className={`badge ${STATUS_CLASS[t.state] ?? ''}`}>{t.state}</span>
                  </td>
                  <td>{t.lastError ? `${t.lastError.category}: ${t.lastError.message}` : '—'}</td>
                  <td>
                    {t.providerUrl ? (
                      <a href={t.providerUrl} rel="noreferrer">
                        permalink
                      </a>
                    ) : (
                      '—'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="actions">
            {pending && (
              <button type="button" className="secondary" onClick={cancel}>
                Cancel post
              </button>
            )}
            <button type="button" className="secondary" onClick={() => navigate('/calendar')}>
              Back to calendar
            </button>
          </div>
          <PostMetrics job={job} />
        </>
      )}
    </section>
  );
}
