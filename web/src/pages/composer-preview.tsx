/**
 * The composer's live preview: one card per selected channel, as the platform will show the post: the
 * text cut where the feed folds it ("… more") and marked past the platform's hard limit, the title of
 * YouTube and Pinterest, the media in order (the first one large, as the feeds crop it), the first comment.
 */
import type { ChannelAccount, PlanPreview } from '../client';
import { FOLD_AT, HAS_TITLE, PlatformIcon, platformName } from '../platforms';

export interface ComposerMedia {
  id: string;
  name: string;
  kind: 'image' | 'video' | 'gif';
  url: string;
  mimeType?: string;
  altText: string;
}

/** Splits text at a character count counted in code points (what a person sees as characters). */
function cut(text: string, at: number): [string, string] {
  const chars = Array.from(text);
  return [chars.slice(0, at).join(''), chars.slice(at).join('')];
}

function PreviewCard({
  channel,
  text,
  title,
  media,
  firstComment,
  target,
}: {
  channel: ChannelAccount;
  text: string;
  title: string;
  media: ComposerMedia[];
  firstComment: string;
  target: PlanPreview['targets'][number] | undefined;
}) {
  const fold = FOLD_AT[channel.platform] ?? 280;
  const [shown, folded] = cut(text, fold);
  const limit = target?.maxTextLength ?? null;
  const over = limit !== null && target ? target.textLength - limit : 0;
  const issues = target?.issues ?? [];
  return (
    <article
      className={`pcard pcard-${channel.platform}`}
      aria-label={`preview on ${platformName(channel.platform)}: ${channel.displayName}`}
    >
      <header className="pcard-head">
        <PlatformIcon platform={channel.platform} size={22} />
        <span>
          <strong>{channel.displayName}</strong>
          <span className="muted"> {channel.handle ? `@${channel.handle}` : platformName(channel.platform)}</span>
        </span>
      </header>
      {HAS_TITLE.has(channel.platform) && (
        <p className="pcard-title">{title || <span className="muted">Add a title for {platformName(channel.platform)}</span>}</p>
      )}
      {media.length > 0 && (
        <div className={`pcard-media count-${Math.min(media.length, 4)}`}>
          {media
            .slice(0, 4)
            .map((m, i) =>
              m.kind === 'video' ? (
                <video key={m.id} src={m.url} muted preload="metadata" aria-label={m.altText || `video ${i + 1}`} />
              ) : (
                <img key={m.id} src={m.url} alt={m.altText || `image ${i + 1} (no alt text yet)`} />
              ),
            )}
          {media.length > 4 && <span className="pcard-more">+{media.length - 4}</span>}
        </div>
      )}
      <p className="pcard-text">
        {shown || <span className="muted">Your text appears here.</span>}
        {folded && (
          <>
            <span className="folded" data-testid="folded-text">
              {folded}
            </span>
            <span className="fold-mark"> … more</span>
          </>
        )}
      </p>
      {folded && (
        <p className="muted small">
          {platformName(channel.platform)} shows the first {fold} characters in the feed; the rest behind "more".
        </p>
      )}
      {firstComment && (
        <div className="pcard-comment">
          <span className="muted small">First comment</span>
          <p>{firstComment}</p>
        </div>
      )}
      <footer className="pcard-foot">
        {target ? (
          <span className={over > 0 ? 'error' : 'muted'}>
            {target.textLength}
            {limit !== null ? ` / ${limit}` : ''} characters{over > 0 ? `: ${over} over the limit` : ''}
          </span>
        ) : (
          <span className="muted">Checking…</span>
        )}
        {issues.map((i) => (
          <span key={i.code + i.path.join('.')} className={i.severity === 'blocking' ? 'error' : 'warn-text'}>
            {i.message}
          </span>
        ))}
      </footer>
    </article>
  );
}

export function ComposerPreview({
  channels,
  textFor,
  titleFor,
  media,
  firstComment,
  preview,
}: {
  channels: ChannelAccount[];
  textFor: (c: ChannelAccount) => string;
  titleFor: (c: ChannelAccount) => string;
  media: ComposerMedia[];
  firstComment: string;
  preview: PlanPreview | null;
}) {
  if (channels.length === 0) return <p className="muted">Choose a channel to see how the post will look there.</p>;
  return (
    <div className="pcards">
      {channels.map((c, i) => (
        <PreviewCard
          key={c.channelAccountId}
          channel={c}
          text={textFor(c)}
          title={titleFor(c)}
          media={media}
          firstComment={firstComment}
          target={preview?.targets.find((t) => t.channelAccountId === c.channelAccountId) ?? preview?.targets[i]}
        />
      ))}
    </div>
  );
}
