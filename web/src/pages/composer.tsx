/**
 * The composer: one post to several channels, with a live preview per channel (composer-preview.tsx),
 * per-channel text (and the title YouTube and Pinterest need), media with alt text in posting order,
 * validated by the plan preview, then published or scheduled.
 */
import { type DragEvent, type FormEvent, useEffect, useMemo, useState } from 'react';
import { type ChannelAccount, client, ok, type PlanPreview, type PublishRequest, uploadMedia } from '../client';
import { BrandPicker, ChannelPicker } from '../pickers';
import { HAS_TITLE, PlatformIcon, platformName } from '../platforms';
import { Alert, message, useLoad } from '../ui';
import { useDecides } from './approval';
import { MediaList } from './composer-media';
import { type ComposerMedia, ComposerPreview } from './composer-preview';
import { loadBrands, loadChannels } from './loaders';

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
  const [media, setMedia] = useState<ComposerMedia[]>([]);
  // per channel: its own text (empty: the main text) and, for YouTube and Pinterest, the title
  const [overrides, setOverrides] = useState<Record<string, string>>({});
  const [titles, setTitles] = useState<Record<string, string>>({});
  const [progress, setProgress] = useState<number | null>(null);
  const [preview, setPreview] = useState<PlanPreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const decides = useDecides();

  useEffect(() => {
    if (!brandId && brands?.[0]) setBrandId(brands[0].brandId);
  }, [brands, brandId]);
  const usable = useMemo(
    () => (channels ?? []).filter((c) => c.state === 'connected' && (!c.brandId || c.brandId === brandId)),
    [channels, brandId],
  );

  const chosen = useMemo(() => usable.filter((c) => selected.includes(c.channelAccountId)), [usable, selected]);
  const textFor = (c: ChannelAccount) => overrides[c.channelAccountId] || text;
  const titleFor = (c: ChannelAccount) => titles[c.channelAccountId] ?? '';

  const plan = useMemo((): PublishRequest['plan'] | null => {
    if (!brandId) return null;
    const targets = chosen.map((c) => {
      const settings = {
        ...(firstComment ? { firstComment: { content: firstComment, delayMs: 0 } } : {}),
        ...(HAS_TITLE.has(c.platform) && titles[c.channelAccountId] ? { title: titles[c.channelAccountId] } : {}),
      };
      return {
        channelAccountId: c.channelAccountId,
        platform: c.platform,
        ...(overrides[c.channelAccountId] ? { text: overrides[c.channelAccountId] } : {}),
        ...(Object.keys(settings).length > 0 ? { settings } : {}),
      };
    });
    return {
      brandId,
      text,
      targets,
      // explicit media (not only ids): the order shown and each item's alt text
      media: media.map((m) => ({
        kind: m.kind,
        url: m.url,
        mediaLibraryItemId: m.id,
        ...(m.mimeType ? { mimeType: m.mimeType } : {}),
        ...(m.altText ? { altText: m.altText } : {}),
      })),
      ...(when === 'schedule' && scheduleAt ? { scheduleAt: new Date(scheduleAt).toISOString() } : {}),
    };
  }, [brandId, text, chosen, overrides, titles, firstComment, media, when, scheduleAt]);

  useEffect(() => {
    if (!plan || plan.targets?.length === 0) return setPreview(null);
    const t = setTimeout(() => {
      const { scheduleAt: _at, ...rest } = plan;
      ok(client.POST('/v1/publish/plans/preview', { body: rest as never })).then(
        (p) => {
          setPreview(p);
          setError(null);
        },
        (e) => setError(message(e)),
      );
    }, 250);
    return () => clearTimeout(t);
  }, [plan]);

  const onFiles = async (files: FileList | null) => {
    if (!files || !brandId) return;
    for (const f of Array.from(files)) {
      setProgress(0);
      try {
        const item = await uploadMedia(f, brandId, setProgress);
        setMedia((m) => [
          ...m,
          {
            id: item.mediaLibraryItemId,
            name: f.name,
            kind: item.kind,
            url: item.publicUrl ?? '',
            mimeType: item.mimeType ?? undefined,
            altText: '',
          },
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
      if (decides !== false) {
        const job = (await ok(client.POST('/v1/publish/jobs', { body: { dryRun: false, enqueue: true, plan } }))) as unknown as {
          publishJobId: string;
        };
        navigate(`/posts/${job.publishJobId}`);
        return;
      }
      // a member's post is a draft submitted for approval (at the time chosen, if any)
      const { scheduleAt: wanted, ...draft } = plan;
      const job = (await ok(client.POST('/v1/publish/jobs', { body: { dryRun: false, plan: draft } }))) as unknown as {
        publishJobId: string;
      };
      await ok(
        client.POST('/v1/publish/jobs/{publishJobId}/submit', {
          params: { path: { publishJobId: job.publishJobId } },
          body: wanted ? { scheduleAt: wanted } : {},
        }),
      );
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
      <div className="compose-layout">
        <form onSubmit={submit} aria-label="composer" className="composer">
          <BrandPicker brands={brands} value={brandId} onChange={setBrandId} />
          <ChannelPicker
            legend="Channels"
            channels={usable}
            selected={selected}
            onChange={setSelected}
            empty="No connected channel for this brand."
          />
          {/* a label beside (not around) the text box: React mirrors a textarea's value into its text content */}
          <div className="field">
            <label htmlFor="compose-text">Text</label>
            <textarea
              id="compose-text"
              rows={5}
              value={text}
              onChange={(e) => setText(e.target.value)}
              aria-describedby="compose-validation"
            />
          </div>
          <fieldset
            className="drop"
            aria-label="media"
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
            <MediaList media={media} onChange={setMedia} />
          </fieldset>
          {chosen.length > 0 && (
            <details className="overrides">
              <summary>Text per channel</summary>
              {chosen.map((c) => (
                <div key={c.channelAccountId} className="override">
                  <span className="plabel">
                    <PlatformIcon platform={c.platform} />
                    {c.displayName}
                  </span>
                  {HAS_TITLE.has(c.platform) && (
                    <label>
                      Title ({c.displayName})
                      <input
                        value={titleFor(c)}
                        maxLength={100}
                        onChange={(e) => setTitles({ ...titles, [c.channelAccountId]: e.target.value })}
                      />
                    </label>
                  )}
                  <label htmlFor={`text-${c.channelAccountId}`}>Text for {c.displayName}</label>
                  <textarea
                    id={`text-${c.channelAccountId}`}
                    rows={3}
                    value={overrides[c.channelAccountId] ?? ''}
                    placeholder="Empty: the main text"
                    onChange={(e) => setOverrides({ ...overrides, [c.channelAccountId]: e.target.value })}
                  />
                </div>
              ))}
            </details>
          )}
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
                  <strong>{platformName(t.platform)}</strong>: {t.textLength}
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
          <button type="submit" disabled={busy || !preview?.valid || decides === undefined}>
            {decides === false ? 'Submit for approval' : when === 'now' ? 'Publish now' : 'Schedule'}
          </button>
        </form>
        <aside aria-label="preview" className="compose-preview">
          <h2>Preview</h2>
          <ComposerPreview
            channels={chosen}
            textFor={textFor}
            titleFor={titleFor}
            media={media}
            firstComment={firstComment}
            preview={preview}
          />
        </aside>
      </div>
    </section>
  );
}
