/**
 * Inbox: synced comments (GET /v1/social-comments) with status filters, an AI reply draft
 * (POST /v1/social-comments/reply-drafts) and the reply (POST /v1/social-comments/{id}/reply).
 * These routes are not in the OpenAPI document yet, so they go through the JSON helper with types
 * written from the spec; a 404 shows the "not available" state.
 */
import { useState } from 'react';
import { call } from './client';
import { loadBrands } from './pages';
import { Alert, maybe, message, Unavailable, useLoad } from './ui';

/** SocialComment (spec). */
export interface SocialComment {
  socialCommentId: string;
  organizationId: string;
  brandId: string | null;
  channelAccountId: string;
  platform: string;
  providerPostId: string;
  providerCommentId: string;
  postTargetId: string | null;
  parentProviderCommentId: string | null;
  authorName: string | null;
  authorHandle: string | null;
  permalinkUrl: string | null;
  providerCreatedAt: string | null;
  body: string;
  status: 'needs_reply' | 'replied' | 'drafted';
  replyStatus: 'none' | 'replied' | 'drafted' | 'failed' | 'needs_reconciliation';
  metrics: Record<string, unknown>;
  lastSyncedAt: string;
  createdAt: string;
  updatedAt: string;
}
interface ReplyDraftResponse {
  mode: 'dry_run' | 'drafted';
  draft: { reply: string; constraints: { platform: string; tone: string; maxCharacters: number } };
  requiredEnv?: string[];
}
const TONES = ['helpful', 'friendly', 'concise', 'premium', 'supportive'] as const;
const FILTERS = [
  ['', 'All'],
  ['needs_reply', 'Needs reply'],
  ['drafted', 'Drafted'],
  ['replied', 'Replied'],
] as const;

function CommentCard({ c, brandName, onDone }: { c: SocialComment; brandName?: string; onDone: () => void }) {
  const [reply, setReply] = useState('');
  const [tone, setTone] = useState<(typeof TONES)[number]>('helpful');
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const draft = async () => {
    setBusy(true);
    setError(null);
    try {
      const r = await call<ReplyDraftResponse>('POST', '/v1/social-comments/reply-drafts', {
        platform: c.platform,
        commentText: c.body,
        tone,
        dryRun: false,
        ...(c.brandId ? { brandId: c.brandId } : {}),
        ...(brandName ? { brandName } : {}),
      });
      setReply(r.draft.reply);
      setNote(r.mode === 'dry_run' ? `Template draft (the AI provider is not configured${r.requiredEnv?.length ? `: ${r.requiredEnv.join(', ')}` : ''}).` : 'AI draft.');
    } catch (e) {
      setError(message(e));
    } finally {
      setBusy(false);
    }
  };
  const send = async () => {
    setBusy(true);
    setError(null);
    try {
      await call('POST', `/v1/social-comments/${encodeURIComponent(c.socialCommentId)}/reply`, {
        organizationId: c.organizationId,
        brandId: c.brandId,
        body: reply,
        dryRun: false,
      });
      setNote('Reply sent.');
      onDone();
    } catch (e) {
      setError(message(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <li className="row-card">
      <div>
        <strong>{c.authorName ?? c.authorHandle ?? 'Someone'}</strong> <span className="muted">on {c.platform}</span>{' '}
        <span className="badge">{c.status}</span>
        {c.permalinkUrl && (
          <>
            {' '}
            <a href={c.permalinkUrl} rel="noreferrer">
              open
            </a>
          </>
        )}
      </div>
      <blockquote>{c.body}</blockquote>
      {c.status !== 'replied' && (
        <>
          <label>
            Tone
            <select value={tone} onChange={(e) => setTone(e.target.value as (typeof TONES)[number])}>
              {TONES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </label>
          <label>
            Reply
            <textarea rows={3} value={reply} onChange={(e) => setReply(e.target.value)} />
          </label>
          <div className="actions">
            <button type="button" className="secondary" onClick={draft} disabled={busy}>
              Draft a reply
            </button>
            <button type="button" onClick={send} disabled={busy || !reply.trim() || !c.brandId}>
              Send reply
            </button>
          </div>
          {!c.brandId && <p className="muted">This comment's channel belongs to no brand; assign the channel to a brand to reply.</p>}
        </>
      )}
      {note && <p role="status">{note}</p>}
      <Alert text={error} />
    </li>
  );
}

export default function InboxPage() {
  const [status, setStatus] = useState('');
  const [brands] = useLoad(loadBrands, []);
  const [comments, error, reload] = useLoad(
    () => maybe(() => call<{ data: SocialComment[] }>('GET', `/v1/social-comments${status ? `?status=${status}` : ''}`).then((r) => r.data)),
    [status],
  );
  return (
    <section>
      <h1>Inbox</h1>
      <div className="toolbar" role="group" aria-label="filter comments">
        {FILTERS.map(([value, label]) => (
          <button key={value} type="button" aria-pressed={status === value} onClick={() => setStatus(value)}>
            {label}
          </button>
        ))}
      </div>
      <Alert text={error} />
      {comments?.available === false && <Unavailable what="The comment inbox" />}
      {comments?.available && (
        <ul className="list">
          {comments.data.map((c) => (
            <CommentCard key={c.socialCommentId} c={c} brandName={brands?.find((b) => b.brandId === c.brandId)?.name} onDone={reload} />
          ))}
          {comments.data.length === 0 && <li className="muted">No comments here.</li>}
        </ul>
      )}
    </section>
  );
}
