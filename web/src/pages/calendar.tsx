/**
 * The calendar of a brand's posts (week or month) in the brand's time zone: posts in time order within
 * a day with their channels' icons and names; drag a scheduled post to another day and a dialog asks the
 * time there (prefilled with the post's time of day), then POST /v1/publish/jobs/{id}/schedule; click to
 * open. Month view dims the days of the neighbouring months.
 */
import { type DragEvent, Fragment, useEffect, useMemo, useState } from 'react';
import { type ChannelAccount, client, ok, type PublishJob } from '../client';
import { BrandPicker } from '../pickers';
import { PlatformIcon } from '../platforms';
import { useCan } from '../session';
import { Alert, ConfirmDialog, Loading, message, useLoad } from '../ui';
import { addDays, type DayRef, dayKey, dayLabel, dayOf, mondayOf, timeLabel, zonedInstant, zonedParts } from '../zoned';
import { approve, reject, useDecides } from './approval';
import { loadBrands, loadChannels } from './loaders';
import { STATUS_CLASS } from './status';

const jobTime = (j: PublishJob) => new Date(j.scheduledAt ?? j.createdAt);
const STATUS_LABEL: Record<string, string> = {
  draft: 'Draft',
  pending_approval: 'Waiting for approval',
  scheduled: 'Scheduled',
  published: 'Published',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

function PostChip({
  job,
  zone,
  channels,
  canMove,
  onOpen,
}: {
  job: PublishJob;
  zone: string;
  channels: Map<string, ChannelAccount>;
  canMove: boolean;
  onOpen: () => void;
}) {
  const targets = job.targets.map((t) => ({
    id: t.postTargetId,
    platform: t.platform,
    name: channels.get(t.channelAccountId)?.displayName ?? t.platform,
  }));
  const names = [...new Set(targets.map((t) => t.name))];
  const movable = canMove && job.status === 'scheduled';
  return (
    <button
      type="button"
      className={`post ${STATUS_CLASS[job.status] ?? ''}${movable ? ' movable' : ''}`}
      draggable={movable}
      onDragStart={(e) => e.dataTransfer.setData('text/plain', job.publishJobId)}
      onClick={onOpen}
      data-job={job.publishJobId}
    >
      <span className="post-time">{timeLabel(jobTime(job), zone)}</span>
      <span className="post-channels">
        {targets.slice(0, 3).map((t) => (
          <PlatformIcon key={t.id} platform={t.platform} size={14} />
        ))}
        <span className="post-channel-names">{names.join(', ')}</span>
      </span>
      <span className="post-text">{job.text.slice(0, 80) || '(no text)'}</span>
      <span className="status">{STATUS_LABEL[job.status] ?? job.status}</span>
    </button>
  );
}

export function CalendarPage({ navigate }: { navigate: (to: string) => void }) {
  const can = useCan();
  const [brands] = useLoad(loadBrands, []);
  const [channelList] = useLoad(loadChannels, []);
  const [brandId, setBrandId] = useState('');
  useEffect(() => {
    if (!brandId && brands?.[0]) setBrandId(brands[0].brandId);
  }, [brands, brandId]);
  const brand = brands?.find((b) => b.brandId === brandId);
  const zone = brand?.timezone ?? 'UTC';
  const [view, setView] = useState<'week' | 'month'>('week');
  const [anchor, setAnchor] = useState<DayRef>(() => dayOf(new Date(), zone));
  const [error, setError] = useState<string | null>(null);
  const decides = useDecides();
  const [note, setNote] = useState<string | null>(null);

  const days = useMemo(() => {
    const first = view === 'week' ? mondayOf(anchor) : mondayOf({ y: anchor.y, m: anchor.m, d: 1 });
    return Array.from({ length: view === 'week' ? 7 : 42 }, (_, i) => addDays(first, i));
  }, [view, anchor]);
  const from = zonedInstant(days[0]!, 0, 0, zone);
  const to = zonedInstant(addDays(days[days.length - 1]!, 1), 0, 0, zone);
  const [jobs, loadError, reload] = useLoad(
    () =>
      brandId
        ? ok(
            client.GET('/v1/publish/jobs', { params: { query: { brandId, from: from.toISOString(), to: to.toISOString(), limit: 100 } } }),
          ).then((r) => r.data as PublishJob[])
        : Promise.resolve([] as PublishJob[]),
    [brandId, from.getTime(), to.getTime()],
  );
  const channels = useMemo(() => new Map((channelList ?? []).map((c) => [c.channelAccountId, c])), [channelList]);
  const byDay = useMemo(() => {
    const m = new Map<string, PublishJob[]>();
    for (const j of [...(jobs ?? [])].sort((a, b) => jobTime(a).getTime() - jobTime(b).getTime())) {
      const k = dayKey(dayOf(jobTime(j), zone));
      m.set(k, [...(m.get(k) ?? []), j]);
    }
    return m;
  }, [jobs, zone]);

  const move = (step: number) =>
    setAnchor((a) => {
      if (view === 'week') return addDays(a, 7 * step);
      const t = new Date(Date.UTC(a.y, a.m - 1 + step, 1));
      return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: 1 };
    });

  // a drop asks for the time on the new day (prefilled with the post's time of day), then reschedules
  const [moving, setMoving] = useState<{ job: PublishJob; day: DayRef; time: string } | null>(null);
  const drop = (e: DragEvent, day: DayRef) => {
    e.preventDefault();
    const id = e.dataTransfer.getData('text/plain');
    const job = jobs?.find((j) => j.publishJobId === id);
    if (!job) return;
    const old = zonedParts(jobTime(job), zone);
    setMoving({ job, day, time: `${String(old.h).padStart(2, '0')}:${String(old.min).padStart(2, '0')}` });
  };
  const move_ = async () => {
    if (!moving) return;
    const [h, min] = moving.time.split(':').map(Number);
    const at = zonedInstant(moving.day, h ?? 0, min ?? 0, zone);
    setMoving(null);
    setError(null);
    setNote(null);
    try {
      await ok(
        client.POST('/v1/publish/jobs/{publishJobId}/schedule', {
          params: { path: { publishJobId: moving.job.publishJobId } },
          body: { scheduleAt: at.toISOString() },
        }),
      );
      setNote(`Moved to ${dayLabel(moving.day, { weekday: 'long', day: 'numeric', month: 'long' })}, ${timeLabel(at, zone)}.`);
      reload();
    } catch (err) {
      setError(message(err));
    }
  };

  const decide = async (job: PublishJob, yes: boolean) => {
    setError(null);
    try {
      if (yes) await approve(job.publishJobId);
      else {
        const reason = window.prompt('Why is this post rejected?');
        if (!reason) return;
        await reject(job.publishJobId, reason);
      }
      reload();
    } catch (err) {
      setError(message(err));
    }
  };

  const title =
    view === 'week'
      ? `Week of ${dayLabel(days[0]!, { day: 'numeric', month: 'short', year: 'numeric' })}`
      : dayLabel({ ...anchor, d: 1 }, { month: 'long', year: 'numeric' });
  const today = dayKey(dayOf(new Date(), zone));

  return (
    <section>
      <h1>Calendar</h1>
      <div className="toolbar">
        <BrandPicker brands={brands} value={brandId} onChange={setBrandId} />
        <span className="muted small" data-testid="calendar-zone">
          Times in {zone.replaceAll('_', ' ')}
        </span>
      </div>
      <div className="toolbar">
        <button type="button" className="secondary" onClick={() => move(-1)} aria-label="previous">
          ‹
        </button>
        <h2>{title}</h2>
        <button type="button" className="secondary" onClick={() => move(1)} aria-label="next">
          ›
        </button>
        <button type="button" className="secondary" onClick={() => setAnchor(dayOf(new Date(), zone))}>
          Today
        </button>
        <button type="button" aria-pressed={view === 'week'} onClick={() => setView('week')}>
          Week
        </button>
        <button type="button" aria-pressed={view === 'month'} onClick={() => setView('month')}>
          Month
        </button>
      </div>
      {note && <p role="status">{note}</p>}
      <Alert text={loadError ?? error} />
      {!jobs && !loadError && <Loading what="Loading posts" />}
      {jobs?.length === 0 && <p className="muted">No posts in this {view}. Compose one, or drag a scheduled post here from another day.</p>}
      <div className={`grid ${view}`}>
        {days.map((d) => {
          const key = dayKey(d);
          const outside = view === 'month' && d.m !== anchor.m;
          return (
            // biome-ignore lint/a11y/noStaticElementInteractions: a drop target for dragged posts; keyboard users reschedule on the post's page
            <div
              key={key}
              className={`day${outside ? ' outside' : ''}${key === today ? ' today' : ''}`}
              data-day={key}
              onDragOver={(e) => e.preventDefault()}
              onDrop={(e) => drop(e, d)}
            >
              <div className="date">{dayLabel(d, { weekday: 'short', day: 'numeric' })}</div>
              {byDay.get(key)?.map((j) => (
                <Fragment key={j.publishJobId}>
                  <PostChip
                    job={j}
                    zone={zone}
                    channels={channels}
                    canMove={can('publishing.results.manage')}
                    onOpen={() => navigate(`/posts/${j.publishJobId}`)}
                  />
                  {decides && j.status === 'pending_approval' && (
                    <span className="actions wrap" data-decide={j.publishJobId}>
                      <button type="button" onClick={() => void decide(j, true)} aria-label={`approve ${j.text.slice(0, 40)}`}>
                        Approve
                      </button>
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => void decide(j, false)}
                        aria-label={`reject ${j.text.slice(0, 40)}`}
                      >
                        Reject
                      </button>
                    </span>
                  )}
                </Fragment>
              ))}
            </div>
          );
        })}
      </div>
      <ConfirmDialog
        open={moving !== null}
        title={moving ? `Move to ${dayLabel(moving.day, { weekday: 'long', day: 'numeric', month: 'long' })}?` : 'Move'}
        confirmLabel="Move post"
        onConfirm={() => void move_()}
        onCancel={() => setMoving(null)}
      >
        <label>
          Time ({zone.replaceAll('_', ' ')})
          <input
            type="time"
            required
            value={moving?.time ?? ''}
            onChange={(e) => moving && setMoving({ ...moving, time: e.target.value })}
          />
        </label>
      </ConfirmDialog>
    </section>
  );
}
