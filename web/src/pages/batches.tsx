/**
 * Batches: rows of (product, text, channels) pasted as CSV or edited in place, a slot policy with the
 * service's defaults, a preview on a per-channel timeline with its warnings, the commit, and the list of
 * the brand's batches with their derived status.
 */
import { type FormEvent, useEffect, useMemo, useState } from 'react';
import type { paths } from '../../../packages/sdk/src/generated/openapi';
import { fmtDay, fmtTime, slotNote } from '../batch-format';
import { type Brand, type ChannelAccount, client, ok } from '../client';
import { parseCsv } from '../csv';
import { BrandPicker, ChannelPicker } from '../pickers';
import { platformName } from '../platforms';
import { useCan } from '../session';
import { Alert, Empty, message, useLoad } from '../ui';
import { TimeZoneSelect } from './brands';
import { loadBrands, loadChannels } from './loaders';

type Json<T> = T extends { content: { 'application/json': infer J } } ? J : never;
type PreviewRequest = Json<NonNullable<paths['/v1/publish/batches/preview']['post']['requestBody']>>;
type Preview = Json<paths['/v1/publish/batches/preview']['post']['responses'][200]>;
type BatchList = Json<paths['/v1/publish/batches']['get']['responses'][200]>;
type Batch = BatchList['data'][number];

interface Row {
  id: string;
  productId: string;
  text: string;
  channelIds: string[];
}

const rowId = () => `row-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

const STATUS_CLASS: Record<string, string> = {
  scheduled: 'info',
  processing: 'info',
  published: 'ok',
  partially_scheduled: 'warn',
  partially_published: 'warn',
  needs_attention: 'warn',
  failed: 'bad',
  unscheduled: 'muted',
};

export default function BatchesPage() {
  const can = useCan();
  if (!can('publishing.batches.manage'))
    return (
      <section>
        <h1>Batches</h1>
        <Empty title="Batches are planned by admins.">Ask an admin of your organization to plan a batch, or compose single posts.</Empty>
      </section>
    );
  return <BatchPlanner />;
}

function BatchPlanner() {
  const [brands] = useLoad(loadBrands, []);
  const [channels] = useLoad(loadChannels, []);
  const [brandId, setBrandId] = useState('');
  const brand: Brand | undefined = brands?.find((b) => b.brandId === brandId);
  const products = brand?.products ?? [];
  const usable = useMemo(
    () => (channels ?? []).filter((c) => c.state === 'connected' && (!c.brandId || c.brandId === brandId)),
    [channels, brandId],
  );
  const [rows, setRows] = useState<Row[]>([]);
  const [csv, setCsv] = useState('');
  const [csvNote, setCsvNote] = useState<string | null>(null);
  // Policy defaults: the service's own (docs/batches.md); times are local wall times of `timezone`.
  const [times, setTimes] = useState('09:00, 17:30');
  const [timezone, setTimezone] = useState(() => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  // posting times are the brand's local times unless changed here
  useEffect(() => {
    if (brand?.timezone) setTimezone(brand.timezone);
  }, [brand?.timezone]);
  const [horizonDays, setHorizonDays] = useState(14);
  const [minGap, setMinGap] = useState(120);
  const [cooldown, setCooldown] = useState(240);
  const [weekdaysOnly, setWeekdaysOnly] = useState(false);
  const [linkComment, setLinkComment] = useState(false);
  const [preview, setPreview] = useState<{ request: PreviewRequest; answer: Preview } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [batches, listError, reloadBatches] = useLoad(
    () =>
      brandId
        ? ok(client.GET('/v1/publish/batches', { params: { query: { brandId, limit: 20 } } })).then((r) => r.data as Batch[])
        : Promise.resolve([] as Batch[]),
    [brandId],
  );

  useEffect(() => {
    if (!brandId && brands?.[0]) setBrandId(brands[0].brandId);
  }, [brands, brandId]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the inputs are what clears a stale preview, not values the effect reads
  useEffect(() => setPreview(null), [rows, times, timezone, horizonDays, minGap, cooldown, weekdaysOnly, linkComment, brandId]);

  const findChannels = (cell: string): ChannelAccount[] =>
    cell
      .split(/[|;\s]+/)
      .map((t) => t.trim().toLowerCase())
      .filter(Boolean)
      .flatMap((t) =>
        usable.filter(
          (c) =>
            c.channelAccountId.toLowerCase() === t ||
            c.platform === t ||
            c.displayName.toLowerCase() === t ||
            c.handle?.toLowerCase() === t,
        ),
      );

  const importCsv = () => {
    const parsed = parseCsv(csv);
    if (parsed[0]?.[0]?.trim().toLowerCase() === 'product') parsed.shift();
    const added: Row[] = [];
    const problems: string[] = [];
    parsed.forEach((cells, i) => {
      const [productCell = '', text = '', channelCell = ''] = cells.map((c) => c.trim());
      const product = products.find((p) => p.productId === productCell || p.name.toLowerCase() === productCell.toLowerCase());
      const found = findChannels(channelCell);
      if (!product) problems.push(`line ${i + 1}: unknown product "${productCell}"`);
      else if (found.length === 0) problems.push(`line ${i + 1}: no connected channel matches "${channelCell}"`);
      else added.push({ id: rowId(), productId: product.productId, text, channelIds: [...new Set(found.map((c) => c.channelAccountId))] });
    });
    setRows((r) => [...r, ...added]);
    setCsvNote(`Added ${added.length} row${added.length === 1 ? '' : 's'}.${problems.length ? ` Skipped: ${problems.join('; ')}.` : ''}`);
    if (added.length) setCsv('');
  };

  const update = (id: string, patch: Partial<Row>) => setRows((rs) => rs.map((r) => (r.id === id ? { ...r, ...patch } : r)));

  const buildRequest = (): PreviewRequest => {
    const slotTimes = times
      .split(/[,\s]+/)
      .map((t) => t.trim())
      .filter(Boolean);
    const next = new Date(Math.ceil((Date.now() + 1) / 60_000) * 60_000);
    return {
      brandId,
      from: next.toISOString(),
      items: rows.map((r) => ({
        clientAssetId: r.id,
        productId: r.productId,
        text: r.text,
        targets: r.channelIds.map((id) => {
          const c = usable.find((x) => x.channelAccountId === id)!;
          return { platform: c.platform, channelAccountId: id };
        }),
      })),
      policy: {
        horizonDays,
        slots: slotTimes.map((localTime, i) => ({
          id: `slot-${i + 1}`,
          localTime,
          timezone,
          minGapMinutes: minGap,
          productCooldownMinutes: cooldown,
          ...(weekdaysOnly ? { weekdays: [1, 2, 3, 4, 5] } : {}),
        })),
      } as PreviewRequest['policy'],
      ...(linkComment ? { productLinkComment: { enabled: true } as PreviewRequest['productLinkComment'] } : {}),
    };
  };

  const runPreview = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setNote(null);
    setBusy(true);
    try {
      const request = buildRequest();
      const answer = await ok(client.POST('/v1/publish/batches/preview', { body: request }));
      setPreview({ request, answer });
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };

  const commit = async () => {
    if (!preview) return;
    setBusy(true);
    setError(null);
    try {
      // The preview's id: the commit persists exactly the schedule shown, or answers 409 when posts
      // created since then break it (then preview again).
      const id = preview.answer.batchPreviewId;
      const body = { ...preview.request, dryRun: false, source: 'dashboard', idempotencyKey: id, batchPreviewId: id };
      const batch = (await ok(client.POST('/v1/publish/batches', { body: body as never }))) as unknown as Batch;
      setNote(`Batch committed: ${batch.itemCount} items, status ${batch.status}.`);
      setRows([]);
      setPreview(null);
      reloadBatches();
    } catch (err) {
      setError(message(err));
    } finally {
      setBusy(false);
    }
  };

  const channelName = (id: string) => {
    const c = channels?.find((x) => x.channelAccountId === id);
    return c ? `${c.displayName} (${platformName(c.platform)})` : id;
  };
  const rowText = (clientAssetId: string) => preview?.request.items.find((i) => i.clientAssetId === clientAssetId)?.text ?? clientAssetId;
  const productName = (id: string) => products.find((p) => p.productId === id)?.name ?? id;

  const timeline = useMemo(() => {
    const byChannel = new Map<string, Map<string, Preview['assignments']>>();
    for (const a of [...(preview?.answer.assignments ?? [])].sort((x, y) => x.scheduledAt.localeCompare(y.scheduledAt))) {
      const days = byChannel.get(a.channelAccountId) ?? new Map();
      const day = fmtDay(a.scheduledAt);
      days.set(day, [...(days.get(day) ?? []), a]);
      byChannel.set(a.channelAccountId, days);
    }
    return byChannel;
  }, [preview]);

  return (
    <section>
      <h1>Batches</h1>
      <p className="muted">Plan many product posts at once: add rows, set your posting times, preview the schedule, then commit.</p>
      <BrandPicker brands={brands} value={brandId} onChange={setBrandId} />

      <h2>Rows</h2>
      <details className="panel">
        <summary>Paste CSV rows</summary>
        <p className="muted">
          One row per post: <code>product,text,channels</code>. Product is its name or id; channels are platform names, channel names or ids
          separated by <code>|</code>. A header row is optional.
        </p>
        <label>
          CSV rows
          <textarea
            rows={5}
            value={csv}
            onChange={(e) => setCsv(e.target.value)}
            placeholder={'product,text,channels\nHouse Blend,"Fresh roast, today",x'}
          />
        </label>
        <button type="button" onClick={importCsv} disabled={!csv.trim()}>
          Add rows from CSV
        </button>
        {csvNote && <p role="status">{csvNote}</p>}
      </details>
      {products.length === 0 && <p className="muted">This brand has no products yet.</p>}
      <ol className="rows" aria-label="batch rows">
        {rows.map((r, i) => (
          <li key={r.id} className="row-card">
            <label>
              Product (row {i + 1})
              <select
                aria-label={`Product (row ${i + 1})`}
                value={r.productId}
                onChange={(e) => update(r.id, { productId: e.target.value })}
              >
                {products.map((p) => (
                  <option key={p.productId} value={p.productId}>
                    {p.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Text (row {i + 1})
              <textarea rows={2} value={r.text} onChange={(e) => update(r.id, { text: e.target.value })} />
            </label>
            <ChannelPicker
              legend={`Channels (row ${i + 1})`}
              channels={usable}
              selected={r.channelIds}
              onChange={(channelIds) => update(r.id, { channelIds })}
            />
            <button type="button" className="secondary" onClick={() => setRows((rs) => rs.filter((x) => x.id !== r.id))}>
              Remove row {i + 1}
            </button>
          </li>
        ))}
      </ol>
      <button
        type="button"
        className="secondary"
        disabled={products.length === 0}
        onClick={() =>
          setRows((rs) => [
            ...rs,
            { id: rowId(), productId: products[0]!.productId, text: '', channelIds: usable[0] ? [usable[0].channelAccountId] : [] },
          ])
        }
      >
        Add a row
      </button>

      <form onSubmit={runPreview} aria-label="schedule policy" className="policy">
        <h2>When to post</h2>
        <label>
          Posting times (HH:MM, comma-separated)
          <input value={times} onChange={(e) => setTimes(e.target.value)} pattern="^\s*\d{2}:\d{2}(\s*[,\s]\s*\d{2}:\d{2})*\s*$" required />
        </label>
        <p className="muted small" id="jitter-note">
          Each post goes out within 10 minutes before or after its posting time (a small random shift, the jitter), so your posts do not all
          land on the same minute. The preview shows each post's slot and its shift.
        </p>
        <TimeZoneSelect value={timezone} onChange={setTimezone} />
        <label>
          Days ahead
          <input type="number" min={1} max={60} value={horizonDays} onChange={(e) => setHorizonDays(Number(e.target.value))} />
        </label>
        <label>
          Minimum gap on a channel (minutes)
          <input type="number" min={0} max={1440} value={minGap} onChange={(e) => setMinGap(Number(e.target.value))} />
        </label>
        <label>
          Same product again after (minutes)
          <input type="number" min={0} max={43200} value={cooldown} onChange={(e) => setCooldown(Number(e.target.value))} />
        </label>
        <label className="check">
          <input type="checkbox" checked={weekdaysOnly} onChange={(e) => setWeekdaysOnly(e.target.checked)} /> Weekdays only
        </label>
        <label className="check">
          <input type="checkbox" checked={linkComment} onChange={(e) => setLinkComment(e.target.checked)} /> First comment with the product
          link (UTM tagged)
        </label>
        <button type="submit" disabled={busy || rows.length === 0 || rows.some((r) => r.channelIds.length === 0)}>
          Preview schedule
        </button>
      </form>
      <Alert text={error} />
      {note && <p role="status">{note}</p>}

      {preview && (
        <section aria-label="schedule preview" className="panel">
          <h2>Preview</h2>
          <p data-testid="preview-summary">
            {preview.answer.scheduledItemCount} scheduled, {preview.answer.unscheduledItemCount} unscheduled,{' '}
            {preview.answer.assignmentCount} posts
          </p>
          {preview.answer.warnings.length > 0 && (
            <ul aria-label="warnings" className="warnings">
              {preview.answer.warnings.map((w, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: warnings have no id and may repeat; the list is read-only and replaced whole
                <li key={`${w.rule}-${i}`} className={w.unscheduled ? 'error' : 'warn-text'}>
                  <strong>{w.rule}</strong>
                  {w.itemIndex !== null ? ` (row ${w.itemIndex + 1})` : ''}: {w.message}
                </li>
              ))}
            </ul>
          )}
          <div className="timeline">
            {[...timeline.entries()].map(([channelId, days]) => (
              <section key={channelId} aria-label={`timeline ${channelName(channelId)}`} className="lane">
                <h3>{channelName(channelId)}</h3>
                <ol>
                  {[...days.entries()].map(([day, list]) => (
                    <li key={day}>
                      <span className="lane-day">{day}</span>
                      {list.map((a) => (
                        <span key={`${a.itemIndex}-${a.targetIndex}`} className="chip" title={rowText(a.clientAssetId)}>
                          <time dateTime={a.scheduledAt}>{fmtTime(a.scheduledAt)}</time> {productName(a.productId)}:{' '}
                          {rowText(a.clientAssetId).slice(0, 40)}
                          <span className="slot-note">{slotNote(a)}</span>
                        </span>
                      ))}
                    </li>
                  ))}
                </ol>
              </section>
            ))}
          </div>
          <button type="button" onClick={commit} disabled={busy || preview.answer.assignmentCount === 0}>
            Commit batch
          </button>
        </section>
      )}

      <h2>Batches of this brand</h2>
      <Alert text={listError} />
      <div className="scroll-x">
        <table aria-label="batches">
          <thead>
            <tr>
              <th>Created</th>
              <th>Status</th>
              <th>Items</th>
              <th>Posts</th>
              <th>Published / failed / waiting</th>
            </tr>
          </thead>
          <tbody>
            {batches?.map((b) => (
              <tr key={b.publishBatchId} data-batch={b.publishBatchId}>
                <td>{b.createdAt ? new Date(b.createdAt).toLocaleString() : '—'}</td>
                <td>
                  <span className={`badge ${STATUS_CLASS[b.status] ?? ''}`}>{b.status}</span>
                </td>
                <td>{b.itemCount}</td>
                <td>{b.targetCount}</td>
                <td>
                  {b.publishedTargetCount ?? 0} / {b.failedTargetCount ?? 0} / {b.queuedTargetCount ?? 0}
                </td>
              </tr>
            ))}
            {batches?.length === 0 && (
              <tr>
                <td colSpan={5} className="muted">
                  No batches yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
