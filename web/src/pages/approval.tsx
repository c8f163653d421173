/**
 * Approvals and missed posts on the post page and the calendar: "waiting for approval" with the
 * submitter's note and time; admins (and API-key sessions) approve or reject; a member submits a draft;
 * a missed post is offered a new time (rescheduled, or submitted again by a member).
 */
import { type FormEvent, useState } from 'react';
import { call, client, ok, type PublishJob } from '../client';
import { message, useLoad } from '../ui';

const toLocalInput = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/**
 * Whether the signed-in user decides approvals (and publishes directly): admins and owners; an API key
 * (no session role) does too. Undefined while it is being asked.
 */
export function useDecides(): boolean | undefined {
  const [me] = useLoad(() => call<{ role?: string }>('GET', '/v1/me').catch(() => ({ role: undefined })), []);
  return me === undefined ? undefined : me.role !== 'member';
}

const path = (publishJobId: string) => ({ params: { path: { publishJobId } } });

export function approve(publishJobId: string, scheduleAt?: string) {
  return ok(client.POST('/v1/publish/jobs/{publishJobId}/approve', { ...path(publishJobId), body: scheduleAt ? { scheduleAt } : {} }));
}
export function reject(publishJobId: string, reason: string) {
  return ok(client.POST('/v1/publish/jobs/{publishJobId}/reject', { ...path(publishJobId), body: { reason } }));
}

/** The approval part of the post page. */
export function ApprovalPanel({ job, onChange }: { job: PublishJob; onChange: () => void }) {
  const decides = useDecides();
  const [reason, setReason] = useState('');
  const [at, setAt] = useState(() => toLocalInput(new Date(Date.now() + 3600_000)));
  const [error, setError] = useState<string | null>(null);
  const act = async (work: () => Promise<unknown>) => {
    setError(null);
    try {
      await work();
      onChange();
    } catch (e) {
      setError(message(e));
    }
  };
  const a = job.approval;
  const missed = job.targets.some((t) => t.state === 'missed');
  const iso = () => new Date(at).toISOString();
  return (
    <div className="approval" data-testid="approval">
      {job.status === 'pending_approval' && (
        <p>
          <strong>Waiting for approval</strong>
          {a?.scheduleAt && <> · wanted for {new Date(a.scheduleAt).toLocaleString()}</>}
          {a?.note && <> · “{a.note}”</>}
        </p>
      )}
      {a?.state === 'rejected' && job.status === 'draft' && (
        <p>
          Rejected: <em>{a.reason}</em>
        </p>
      )}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <div className="actions">
        {job.status === 'pending_approval' && decides && (
          <>
            <button type="button" onClick={() => act(() => approve(job.publishJobId))}>
              Approve
            </button>
            <form
              aria-label="reject"
              onSubmit={(e: FormEvent) => {
                e.preventDefault();
                void act(() => reject(job.publishJobId, reason));
              }}
            >
              <input aria-label="reason" required placeholder="Why not?" value={reason} onChange={(e) => setReason(e.target.value)} />
              <button type="submit" className="secondary">
                Reject
              </button>
            </form>
          </>
        )}
        {job.status === 'draft' && decides === false && (
          <button
            type="button"
            onClick={() => act(() => ok(client.POST('/v1/publish/jobs/{publishJobId}/submit', { ...path(job.publishJobId), body: {} })))}
          >
            Submit for approval
          </button>
        )}
        {missed && (
          <form
            aria-label="reschedule"
            onSubmit={(e: FormEvent) => {
              e.preventDefault();
              void act(() =>
                decides
                  ? ok(client.POST('/v1/publish/jobs/{publishJobId}/schedule', { ...path(job.publishJobId), body: { scheduleAt: iso() } }))
                  : ok(client.POST('/v1/publish/jobs/{publishJobId}/submit', { ...path(job.publishJobId), body: { scheduleAt: iso() } })),
              );
            }}
          >
            Missed its time: <input type="datetime-local" aria-label="new time" value={at} onChange={(e) => setAt(e.target.value)} />
            <button type="submit">{decides ? 'Reschedule' : 'Submit for approval at this time'}</button>
          </form>
        )}
      </div>
    </div>
  );
}
