/** One post: its targets, their outcomes and metrics. */
import { type FormEvent, useEffect, useState } from 'react';
import { client, ok } from '../client';
import { PlatformLabel } from '../platforms';
import { PostMetrics } from '../post-metrics';
import { useCan } from '../session';
import { Alert, Loading, message, useLoad } from '../ui';
import { ApprovalPanel } from './approval';
import { STATUS_CLASS } from './status';

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
  const can = useCan();
  const [newTime, setNewTime] = useState('');
  const [note, setNote] = useState<string | null>(null);
  // the keyboard's way to reschedule (the calendar's drag needs a pointer)
  const reschedule = async (e: FormEvent) => {
    e.preventDefault();
    setActionError(null);
    try {
      const at = new Date(newTime);
      await ok(
        client.POST('/v1/publish/jobs/{publishJobId}/schedule', {
          params: { path: { publishJobId } },
          body: { scheduleAt: at.toISOString() },
        }),
      );
      setNote(`Rescheduled for ${at.toLocaleString()}.`);
      reload();
    } catch (err) {
      setActionError(message(err));
    }
  };
  const cancel = async () => {
    try {
      await ok(
        client.POST('/v1/publish/jobs/{publishJobId}/cancel', {
          params: { path: { publishJobId } },
          body: { reason: 'cancelled in the dashboard' },
        }),
      );
      reload();
    } catch (e) {
      setActionError(message(e));
    }
  };
  return (
    <section>
      <h1>Post</h1>
      {note && <p role="status">{note}</p>}
      <Alert text={error ?? actionError} />
      {!job && !error && <Loading what="Loading the post" />}
      {job && (
        <>
          <p>
            Status:{' '}
            <span className={`badge ${STATUS_CLASS[job.status] ?? ''}`} data-testid="job-status">
              {job.status}
            </span>
            {job.scheduledAt && <> · scheduled {new Date(job.scheduledAt).toLocaleString()}</>}
          </p>
          <ApprovalPanel job={job} onChange={reload} />
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
                  <td>
                    <PlatformLabel platform={t.platform} />
                  </td>
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
            {pending && can('publishing.results.manage') && (
              <button type="button" className="secondary" onClick={cancel}>
                Cancel post
              </button>
            )}
            <button type="button" className="secondary" onClick={() => navigate('/calendar')}>
              Back to calendar
            </button>
          </div>
          {job.status === 'scheduled' && can('publishing.results.manage') && (
            <form className="inline" aria-label="reschedule" onSubmit={reschedule}>
              <label>
                New time
                <input type="datetime-local" required value={newTime} onChange={(e) => setNewTime(e.target.value)} />
              </label>
              <button type="submit" className="secondary">
                Reschedule
              </button>
            </form>
          )}
          <PostMetrics job={job} />
        </>
      )}
    </section>
  );
}
