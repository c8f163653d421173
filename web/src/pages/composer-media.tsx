/** The composer's media: thumbnails in posting order, alt text per item, move earlier/later, remove. */
import type { ComposerMedia } from './composer-preview';

export function MediaList({ media, onChange }: { media: ComposerMedia[]; onChange: (m: ComposerMedia[]) => void }) {
  const move = (from: number, to: number) => {
    if (to < 0 || to >= media.length) return;
    const next = [...media];
    const [item] = next.splice(from, 1);
    next.splice(to, 0, item!);
    onChange(next);
  };
  if (media.length === 0) return null;
  return (
    <ol className="media-list" aria-label="media in posting order">
      {media.map((m, i) => (
        <li key={m.id} className="media-item">
          {m.kind === 'video' ? (
            <video className="thumb" src={m.url} muted preload="metadata" aria-hidden="true" tabIndex={-1} />
          ) : (
            <img className="thumb" src={m.url} alt="" />
          )}
          <div className="media-fields">
            <span className="small break">
              {i + 1}. {m.name}
            </span>
            <label>
              Alt text ({m.name})
              <input
                value={m.altText}
                maxLength={1000}
                placeholder="Describe the image for people who cannot see it"
                onChange={(e) => onChange(media.map((x) => (x.id === m.id ? { ...x, altText: e.target.value } : x)))}
              />
            </label>
          </div>
          <div className="media-actions">
            <button
              type="button"
              className="secondary small"
              disabled={i === 0}
              onClick={() => move(i, i - 1)}
              aria-label={`Move ${m.name} earlier`}
            >
              ↑
            </button>
            <button
              type="button"
              className="secondary small"
              disabled={i === media.length - 1}
              onClick={() => move(i, i + 1)}
              aria-label={`Move ${m.name} later`}
            >
              ↓
            </button>
            <button
              type="button"
              className="secondary small"
              onClick={() => onChange(media.filter((x) => x.id !== m.id))}
              aria-label={`Remove ${m.name}`}
            >
              ✕
            </button>
          </div>
        </li>
      ))}
    </ol>
  );
}
