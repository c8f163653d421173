/** The calendar of scheduled and published posts (week or month), with drag to reschedule. */
import { type DragEvent, Fragment, useMemo, useState } from 'react';
import { client, ok, type PublishJob } from '../client';
import { Alert, message, useLoad } from '../ui';
import { approve, reject, useDecides } from './approval';
import { STATUS_CLASS } from './status';

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
  const decides = useDecides();
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
              <Fragment key={j.publishJobId}>
                <button
                  type="button"
                  className={`post ${STATUS_CLASS[j.status] ?? ''}`}
                  draggable={j.status === 'scheduled'}
                  onDragStart={(e) => e.dataTransfer.setData('text/plain', j.publishJobId)}
                  onClick={() => navigate(`/posts/${j.publishJobId}`)}
                  data-job={j.publishJobId}
                  title={j.status}
                >
                  {jobTime(j).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })} {j.text.slice(0, 40)}
                  <span className="status">{j.status === 'pending_approval' ? 'waiting for approval' : j.status}</span>
                </button>
                {decides && j.status === 'pending_approval' && (
                  <span className="actions" style={{ flexWrap: 'wrap' }} data-decide={j.publishJobId}>
                    <button type="button" onClick={() => void decide(j, true)} aria-label={`approve ${j.text.slice(0, 40)}`}>
                      Approve
                    </button>
                    <button type="button" className="secondary" onClick={() => void decide(j, false)} aria-label={`reject ${j.text.slice(0, 40)}`}>
                      Reject
                    </button>
                  </span>
                )}
              </Fragment>
            ))}
          </div>
        ))}
      </div>
    </section>
  );
}
