/**
 * Inbox: the synced comments of the organization's published posts (GET /v1/social-comments) with status
 * filters, "Check for new comments" (POST /v1/social-comments/sync-profile per brand), a reply draft from the
 * configured language model (POST /v1/social-comments/reply-drafts, stored on the comment) and the reply
 * (POST /v1/social-comments/{id}/reply with an Idempotency-Key, so a double click or a retry posts once).
 * The channel's own replies are shown under the comment they answer.
 */
import { useState } from 'react';
import { type Brand, client, ok, type PublishJob, type Schemas, ServiceApiError } from '../client';
import { BrandPicker } from '../pickers';
import { platformName } from '../platforms';
import { useCan } from '../session';
import { Alert, Empty, Loading, message, useLoad } from '../ui';
import { loadBrands } from './loaders';

type SocialComment = Schemas['SocialComment'];
const TONES = ['helpful', 'friendly', 'concise', 'premium', 'supportive'] as const;
const FILTERS = [
  ['', 'All'],
  ['needs_reply', 'Needs reply'],
  ['drafted', 'Drafted'],
  ['replied', 'Replied'],
] as const;
type Filter = (typeof FILTERS)[number][0];
const STATUS_CLASS: Record<string, string> = { needs_reply: 'warn', drafted: 'info', replied: 'ok' };
const STATUS_LABEL: Record<string, string> = { needs_reply: 'needs reply', drafted: 'drafted', replied: 'replied' };

/** The post a comment belongs to, as the dashboard published it. */
interface CommentPost {
  text: string;
  thumbnail: string | null;
  url: string | null;
  channelName: string | null;
  publishJobId: string;
}

function postsByTarget(jobs: PublishJob[]): Map<string, CommentPost> {
  const m = new Map<string, CommentPost>();
  for (const j of jobs) {
    const first = j.media[0] as { url?: string; thumbnailUrl?: string; kind?: string } | undefined;
    const thumbnail = first ? (first.thumbnailUrl ?? (first.kind === 'video' ? null : (first.url ?? null))) : null;
    for (const t of j.targets)
      m.set(t.postTargetId, { text: t.text || j.text, thumbnail, url: t.providerUrl, channelName: null, publishJobId: j.publishJobId });
  }
  return m;
}

function PostContext({ post, platform }: { post: CommentPost | undefined; platform: string }) {
  if (!post) return <p className="muted small">On a post that was not published from here.</p>;
  return (
    <div className="comment-post">
      {post.thumbnail && <img className="thumb" src={post.thumbnail} alt="" />}
      <div>
        <span className="muted small">On your post</span>
        <p className="comment-post-text">{post.text.slice(0, 160) || '(no text)'}</p>
        {post.url && (
          <a href={post.url} rel="noreferrer" target="_blank">
            View the post on {platformName(platform)}
          </a>
        )}
      </div>
    </div>
  );
}

function CommentCard({
  c,
  replies,
  brandName,
  post,
  canAnswer,
  onDone,
}: {
  c: SocialComment;
  replies: SocialComment[];
  brandName?: string;
  post?: CommentPost;
  canAnswer: boolean;
  onDone: () => void;
}) {
  const [reply, setReply] = useState(c.draft?.reply ?? '');
  const [tone, setTone] = useState<(typeof TONES)[number]>('helpful');
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // one key per reply text: a retry of the same reply is answered with the first attempt's result
  const [idempotency, setIdempotency] = useState(() => crypto.randomUUID());
  const author = c.authorName ?? (c.authorHandle ? `@${c.authorHandle}` : 'Someone');
  const draft = async () => {
    setBusy(true);
    setError(null);
    const body = {
      platform: c.platform,
      commentText: c.body,
      tone,
      socialCommentId: c.socialCommentId,
      ...(c.brandId ? { brandId: c.brandId } : {}),
      ...(brandName ? { brandName } : {}),
    };
    try {
      const r = await ok(client.POST('/v1/social-comments/reply-drafts', { body: { ...body, dryRun: false } }));
      setReply(r.draft.reply);
      setIdempotency(crypto.randomUUID());
      setNote('AI draft ready: read it, edit it, then send.');
      onDone();
    } catch (e) {
      // no language model configured: say which settings are missing
      if (e instanceof ServiceApiError && e.status === 400) {
        const dry = await ok(client.POST('/v1/social-comments/reply-drafts', { body: { ...body, dryRun: true } })).catch(() => null);
        if (dry?.mode === 'dry_run' && dry.requiredEnv.length > 0) {
          setNote(`No AI provider is configured on this server (${dry.requiredEnv.join(', ')}); write the reply yourself.`);
          return;
        }
      }
      setError(message(e));
    } finally {
      setBusy(false);
    }
  };
  const send = async () => {
    if (!c.brandId) return;
    setBusy(true);
    setError(null);
    try {
      const r = await ok(
        client.POST('/v1/social-comments/{socialCommentId}/reply', {
          params: { path: { socialCommentId: c.socialCommentId } },
          headers: { 'idempotency-key': idempotency },
          body: { organizationId: c.organizationId, brandId: c.brandId, body: reply, dryRun: false },
        }),
      );
      setNote(
        r.mode === 'needs_reconciliation' ? 'The platform did not confirm the reply; it is checked on the next sync.' : 'Reply sent.',
      );
      onDone();
    } catch (e) {
      setError(message(e));
    } finally {
      setBusy(false);
    }
  };
  const replyId = `reply-${c.socialCommentId}`;
  return (
    <li className="row-card" data-comment={c.socialCommentId} aria-label={`comment by ${author}`}>
      <div>
        <strong>{author}</strong>
        {c.authorName && c.authorHandle && <span className="muted"> @{c.authorHandle}</span>}{' '}
        <span className="muted">on {platformName(c.platform)}</span>{' '}
        <span className={`badge ${STATUS_CLASS[c.status] ?? ''}`}>{STATUS_LABEL[c.status] ?? c.status}</span>
        {c.providerCreatedAt && <span className="muted"> · {new Date(c.providerCreatedAt).toLocaleString()}</span>}
        {c.permalinkUrl && (
          <>
            {' '}
            <a href={c.permalinkUrl} rel="noreferrer">
              open the comment on {platformName(c.platform)}
            </a>
          </>
        )}
      </div>
      <PostContext post={post} platform={c.platform} />
      <blockquote>{c.body}</blockquote>
      {replies.length > 0 && (
        <ul className="replies" aria-label={`replies to ${author}`}>
          {replies.map((r) => (
            <li key={r.socialCommentId}>
              <span className="muted">Your reply:</span> {r.body}
            </li>
          ))}
        </ul>
      )}
      {c.status !== 'replied' && c.capabilities.canReply && canAnswer && (
        <>
          <div className="inline">
            <label>
              Tone
              <select aria-label="Tone" value={tone} onChange={(e) => setTone(e.target.value as (typeof TONES)[number])}>
                {TONES.map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </select>
            </label>
          </div>
          <label htmlFor={replyId}>Reply to {author}</label>
          <textarea
            id={replyId}
            rows={3}
            value={reply}
            onChange={(e) => {
              setReply(e.target.value);
              setIdempotency(crypto.randomUUID());
            }}
          />
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
  const canAnswer = useCan()('engagement.comments.manage');
  const [status, setStatus] = useState<Filter>('');
  const [brandId, setBrandId] = useState('');
  const [brands] = useLoad(loadBrands, []);
  const [comments, error, reload] = useLoad(
    () =>
      ok(
        client.GET('/v1/social-comments', {
          params: { query: { limit: 100, ...(status ? { status } : {}), ...(brandId ? { brandId } : {}) } },
        }),
      ).then((r) => r.data as SocialComment[]),
    [status, brandId],
  );
  const [jobs] = useLoad(
    () =>
      ok(client.GET('/v1/publish/jobs', { params: { query: { limit: 100, ...(brandId ? { brandId } : {}) } } })).then(
        (r) => r.data as PublishJob[],
      ),
    [brandId],
  );
  const posts = postsByTarget(jobs ?? []);
  // the channel's own replies (and their replies) are listed under the comment they answer
  const own = (comments ?? []).filter((c) => c.isOwn);
  const audience = (comments ?? []).filter((c) => !c.isOwn);
  const [syncNote, setSyncNote] = useState<string | null>(null);
  const [syncError, setSyncError] = useState<string | null>(null);
  const [syncing, setSyncing] = useState(false);
  const sync = async () => {
    setSyncing(true);
    setSyncError(null);
    setSyncNote(null);
    try {
      const list: Brand[] = (brands ?? []).filter((b) => !brandId || b.brandId === brandId);
      let posts = 0;
      let created = 0;
      const failed: string[] = [];
      for (const b of list) {
        const r = await ok(
          client.POST('/v1/social-comments/sync-profile', {
            body: { organizationId: b.organizationId, brandId: b.brandId, dryRun: false },
          }),
        );
        posts += r.targets.length;
        for (const t of r.targets) {
          created += t.created;
          if (!t.ok) failed.push(`${platformName(t.platform)}: ${t.error?.message ?? 'failed'}`);
        }
      }
      setSyncNote(
        `Checked ${posts} recent post${posts === 1 ? '' : 's'}: ${created} new comment${created === 1 ? '' : 's'}.${failed.length ? ` Not reached: ${failed.join('; ')}` : ''}`,
      );
      reload();
    } catch (e) {
      setSyncError(message(e));
    } finally {
      setSyncing(false);
    }
  };
  return (
    <section>
      <h1>Inbox</h1>
      <div className="inline">
        <BrandPicker brands={brands} value={brandId} onChange={setBrandId} emptyLabel="All brands" />
        {canAnswer && (
          <button type="button" onClick={sync} disabled={syncing || !brands?.length}>
            {syncing ? 'Checking…' : 'Check for new comments'}
          </button>
        )}
      </div>
      {syncNote && <p role="status">{syncNote}</p>}
      <Alert text={syncError} />
      <fieldset className="toolbar plain" aria-label="filter comments">
        {FILTERS.map(([value, label]) => (
          <button key={value} type="button" aria-pressed={status === value} onClick={() => setStatus(value)}>
            {label}
          </button>
        ))}
      </fieldset>
      <Alert text={error} />
      {!comments && !error && <Loading what="Loading comments" />}
      {comments && (
        <ul className="list" aria-label="comments">
          {audience.map((c) => (
            <CommentCard
              key={c.socialCommentId}
              c={c}
              replies={own.filter((r) => r.parentProviderCommentId === c.providerCommentId)}
              brandName={brands?.find((b) => b.brandId === c.brandId)?.name}
              post={c.postTargetId ? posts.get(c.postTargetId) : undefined}
              canAnswer={canAnswer}
              onDone={reload}
            />
          ))}
          {audience.length === 0 && (
            <li>
              <Empty title="No comments here.">Use "Check for new comments" to read the latest comments of your published posts.</Empty>
            </li>
          )}
        </ul>
      )}
    </section>
  );
}
