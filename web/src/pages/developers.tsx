/**
 * Developers: API keys, OAuth apps and grants (credentials.tsx), webhook endpoints (create with the secret shown once, send a test event, delivery log,
 * redeliver) and the tool API playground (UTM builder, QR preview). The tool API has its own keys
 * (`tk_...`, made with the CLI `tool-keys create`); the playground sends the key pasted here only with
 * its own requests and keeps it in this page's memory.
 */
import createClient from 'openapi-fetch';
import { type FormEvent, useState } from 'react';
import type { paths } from '../../../packages/sdk/src/generated/openapi';
import { client, ok, type Schemas } from '../client';
import Credentials from '../credentials';
import { Alert, message, useLoad } from '../ui';

type Endpoint = Schemas['WebhookEndpoint'];
type Delivery = Schemas['WebhookDelivery'];
type UtmAnswer = paths['/api/v1/tools/utm-builder/build']['post']['responses'][200]['content']['application/json'];

// A client without the dashboard credential: tool API requests carry only the pasted tool key.
const toolClient = createClient<paths>({ baseUrl: window.location.origin, credentials: 'omit' });

const DELIVERY_CLASS: Record<string, string> = { delivered: 'ok', pending: 'info', failed: 'bad' };

function Deliveries({ endpoint }: { endpoint: Endpoint }) {
  const [deliveries, error, reload] = useLoad(
    () =>
      ok(
        client.GET('/v1/webhook-endpoints/{webhookEndpointId}/deliveries', {
          params: { path: { webhookEndpointId: endpoint.webhookEndpointId }, query: { limit: 20 } },
        }),
      ).then((r) => r.data as Delivery[]),
    [endpoint.webhookEndpointId],
  );
  const [note, setNote] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const act = async (label: string, run: () => Promise<unknown>) => {
    setActionError(null);
    try {
      await run();
      setNote(label);
      reload();
    } catch (e) {
      setActionError(message(e));
    }
  };
  return (
    <div>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          onClick={() =>
            act('Test event sent.', () =>
              ok(
                client.POST('/v1/webhook-endpoints/{webhookEndpointId}/test', {
                  params: { path: { webhookEndpointId: endpoint.webhookEndpointId } },
                }),
              ),
            )
          }
        >
          Send test event
        </button>
        <button type="button" className="secondary" onClick={reload}>
          Refresh deliveries
        </button>
      </div>
      {note && <p role="status">{note}</p>}
      <Alert text={error ?? actionError} />
      <div className="scroll-x">
        <table aria-label={`deliveries of ${endpoint.url}`}>
          <thead>
            <tr>
              <th>Event</th>
              <th>Status</th>
              <th>Attempts</th>
              <th>Last answer</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {deliveries?.map((d) => (
              <tr key={d.deliveryId} data-delivery={d.deliveryId}>
                <td>{d.eventType}</td>
                <td>
                  <span className={`badge ${DELIVERY_CLASS[d.status] ?? ''}`}>{d.status}</span>
                </td>
                <td>{d.attemptCount}</td>
                <td>{d.lastStatusCode ?? d.lastError ?? '—'}</td>
                <td>{new Date(d.createdAt).toLocaleString()}</td>
                <td>
                  <button
                    type="button"
                    className="secondary"
                    onClick={() =>
                      act('Delivery queued again.', () =>
                        ok(
                          client.POST('/v1/webhook-deliveries/{deliveryId}/redeliver', {
                            params: { path: { deliveryId: d.deliveryId } },
                            body: {},
                          } as never),
                        ),
                      )
                    }
                  >
                    Redeliver
                  </button>
                </td>
              </tr>
            ))}
            {deliveries?.length === 0 && (
              <tr>
                <td colSpan={6} className="muted">
                  No deliveries yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function Webhooks() {
  const [endpoints, error, reload] = useLoad(() => ok(client.GET('/v1/webhook-endpoints', {})).then((r) => r.data as Endpoint[]), []);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const create = async (e: FormEvent) => {
    e.preventDefault();
    setFormError(null);
    try {
      const created = await ok(client.POST('/v1/webhook-endpoints', { body: { url, ...(description ? { description } : {}) } }));
      setSecret(created.secret);
      setUrl('');
      setDescription('');
      reload();
    } catch (err) {
      setFormError(message(err));
    }
  };
  return (
    <section aria-labelledby="webhooks-h">
      <h2 id="webhooks-h">Webhook endpoints</h2>
      <Alert text={error} />
      <ul className="list">
        {endpoints?.map((ep) => (
          <li key={ep.webhookEndpointId} data-endpoint={ep.webhookEndpointId}>
            <strong className="break">{ep.url}</strong>{' '}
            <span className={`badge ${ep.enabled ? 'ok' : 'bad'}`}>
              {ep.enabled ? 'enabled' : `disabled${ep.disabledReason ? `: ${ep.disabledReason}` : ''}`}
            </span>
            {ep.description && <div className="muted">{ep.description}</div>}
            <div className="muted">Events: {ep.eventTypes.length ? ep.eventTypes.join(', ') : 'all'}</div>
            <button
              type="button"
              className="secondary"
              aria-expanded={open === ep.webhookEndpointId}
              onClick={() => setOpen(open === ep.webhookEndpointId ? null : ep.webhookEndpointId)}
            >
              Delivery log
            </button>
            {open === ep.webhookEndpointId && <Deliveries endpoint={ep} />}
          </li>
        ))}
        {endpoints?.length === 0 && <li className="muted">No webhook endpoints yet.</li>}
      </ul>
      <form onSubmit={create} aria-label="new webhook endpoint" className="inline">
        <label>
          Endpoint URL
          <input type="url" value={url} onChange={(e) => setUrl(e.target.value)} required placeholder="https://example.com/hooks" />
        </label>
        <label>
          Description
          <input value={description} onChange={(e) => setDescription(e.target.value)} />
        </label>
        <button type="submit">Add endpoint</button>
      </form>
      <Alert text={formError} />
      {secret && (
        <div role="status" className="panel secret">
          <p>
            Signing secret (shown only now; copy it to verify the <code>webhook-signature</code> header):
          </p>
          <code data-testid="webhook-secret" className="break">
            {secret}
          </code>
          <button type="button" className="secondary" onClick={() => setSecret(null)}>
            I have copied it
          </button>
        </div>
      )}
    </section>
  );
}

function ToolPlayground() {
  const [key, setKey] = useState('');
  const [urls, setUrls] = useState('https://shop.example/p/1');
  const [source, setSource] = useState('newsletter');
  const [medium, setMedium] = useState('email');
  const [campaign, setCampaign] = useState('launch');
  const [answer, setAnswer] = useState<UtmAnswer | null>(null);
  const [qr, setQr] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const headers = { authorization: `Bearer ${key.trim()}` };
  const toolError = (e: unknown, status: number) => {
    const err = e as { error?: { code?: string; message?: string } };
    return `${err.error?.message ?? `HTTP ${status}`} (${err.error?.code ?? 'http_error'})`;
  };
  const build = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setAnswer(null);
    const list = urls
      .split('\n')
      .map((u) => u.trim())
      .filter(Boolean);
    const {
      data,
      error: err,
      response,
    } = await toolClient.POST('/api/v1/tools/utm-builder/build', {
      headers,
      body: { urls: list, source, medium, campaign },
    });
    if (data) setAnswer(data);
    else setError(toolError(err, response.status));
  };
  const makeQr = async (text: string) => {
    setError(null);
    const {
      data,
      error: err,
      response,
    } = await toolClient.POST('/api/v1/tools/qrcode/generate', { headers, body: { text, format: 'svg' } });
    if (data) setQr(data.qrcode.dataUrl);
    else setError(toolError(err, response.status));
  };
  return (
    <section aria-labelledby="tools-h">
      <h2 id="tools-h">Tool API playground</h2>
      <p className="muted">
        The tool API (<code>/api/v1/tools/...</code>) uses its own keys (<code>tk_...</code>, created with{' '}
        <code>service-api tool-keys create --email E</code>) and a Pro or Max membership. Paste a tool key to try it; it is only sent with
        these requests and is not stored.
      </p>
      <form onSubmit={build} aria-label="UTM builder" className="policy">
        <label>
          Tool API key
          <input type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} required />
        </label>
        <label>
          URLs (one a line)
          <textarea rows={3} value={urls} onChange={(e) => setUrls(e.target.value)} required />
        </label>
        <label>
          utm_source
          <input value={source} onChange={(e) => setSource(e.target.value)} required />
        </label>
        <label>
          utm_medium
          <input value={medium} onChange={(e) => setMedium(e.target.value)} required />
        </label>
        <label>
          utm_campaign
          <input value={campaign} onChange={(e) => setCampaign(e.target.value)} required />
        </label>
        <button type="submit">Build links</button>
      </form>
      <Alert text={error} />
      {answer && (
        <section aria-label="UTM links" className="panel">
          <ul className="list">
            {answer.links.map((l) => (
              <li key={l.index}>
                <code className="break" data-testid="utm-link">
                  {l.link}
                </code>{' '}
                <button type="button" className="secondary" onClick={() => void makeQr(l.link)}>
                  QR code
                </button>
              </li>
            ))}
            {answer.invalid.map((i) => (
              <li key={`bad-${i.index}`} className="error">
                Line {i.index + 1}: {i.reason}
              </li>
            ))}
          </ul>
          <p className="muted">
            Quota: {answer.quota.remaining} of {answer.quota.limit} {answer.quota.unit} left today.
          </p>
        </section>
      )}
      {qr && <img src={qr} alt="QR code of the link" width={160} height={160} />}
    </section>
  );
}

export default function DevelopersPage() {
  return (
    <section>
      <h1>Developers</h1>
      <Credentials />
      <Webhooks />
      <ToolPlayground />
    </section>
  );
}
