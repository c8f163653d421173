/**
 * Inbound platform deliveries: the GET handshakes, the signature check over the raw body, the record
 * of each accepted delivery (once per platform and body hash, so a platform's retry does nothing
 * twice) with its processing job in the same transaction, and the processing itself:
 * comment -> a comment sync of the matching post target (comments area), deauthorization -> the
 * channel needs a new login (channels area), YouTube feed entry -> the matching target (publishing).
 */
import { createHash } from 'node:crypto';
import { AppError, isAppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { Platform } from '../../providers/provider.js';
import { parseMetaDelivery, verifyMetaSignature, verifySignedRequest } from '../../providers/webhooks/meta-webhooks.js';
import { type InboundEvent, safeEqual } from '../../providers/webhooks/signatures.js';
import { parseXDelivery, verifyXSignature, xCrcResponse } from '../../providers/webhooks/x-webhooks.js';
import { channelIdOfTopic, parseYoutubeFeed, verifyWebSubSignature } from '../../providers/webhooks/youtube-websub.js';
import type { AppDeps } from '../app-deps.js';
import type { ChannelsReadPort, ChannelsTokenProblemsPort } from '../channels/channels.module.js';
import type { CommentPlatform, CommentsModule } from '../comments/comments.module.js';
import type { PublishingNoticesPort } from '../publishing/publishing.module.js';
import { providerWebhooksRepository as repo } from './provider-webhooks.repository.js';
import { accountPlatforms, type InboundPlatform, isInboundPlatform, type WebhookSettings } from './webhook-settings.js';

const PROVIDER_WEBHOOK_PROCESS_JOB = 'provider-webhooks.process';
export const PROVIDER_WEBHOOK_PROCESS_QUEUE = { name: PROVIDER_WEBHOOK_PROCESS_JOB, queue: { retryLimit: 3, retryDelay: 5 } };

export type Handshake = { kind: 'text'; body: string } | { kind: 'json'; body: { response_token: string } };

const unverified = (message: string) => new AppError('provider_webhook_verification_failed', { message });
const badSignature = (message = "The delivery's signature is missing or does not match.") =>
  new AppError('provider_webhook_signature_invalid', { message });

function knownPlatform(platform: string): InboundPlatform {
  if (!isInboundPlatform(platform))
    throw new AppError('provider_webhook_not_found', { message: `No inbound webhook endpoint for platform ${platform}.` });
  return platform;
}

export class InboundWebhooks {
  constructor(
    private readonly deps: Pick<AppDeps, 'database' | 'jobs' | 'events' | 'clock'>,
    private readonly settings: WebhookSettings,
    private readonly comments: () => CommentsModule,
    private readonly notices: () => PublishingNoticesPort,
    private readonly channels: ChannelsReadPort & ChannelsTokenProblemsPort,
  ) {}

  private get db() {
    return this.deps.database.db;
  }

  /** GET verification of a subscription (Meta hub.*, X CRC, WebSub hub.*). */
  async handshake(name: string, query: Record<string, string | undefined>): Promise<Handshake> {
    const platform = knownPlatform(name);
    if (platform === 'x') {
      const secret = this.settings.secret('x');
      if (!query.crc_token || !secret) throw unverified('crc_token is required.');
      return { kind: 'json', body: xCrcResponse(query.crc_token, secret) };
    }
    const challenge = query['hub.challenge'];
    if (query['hub.mode'] !== 'subscribe' || !challenge) throw unverified('Only hub.mode=subscribe with a hub.challenge is verified.');
    if (platform === 'youtube') {
      const topic = query['hub.topic'] ?? '';
      const known = channelIdOfTopic(topic) ? await repo.getSubscription(this.db, 'youtube', topic) : null;
      if (!known) throw unverified('The topic is not one this service subscribed to.');
      const lease = Number(query['hub.lease_seconds']);
      const now = this.deps.clock.now();
      await repo.activateSubscription(
        this.db,
        'youtube',
        topic,
        Number.isFinite(lease) && lease > 0 ? new Date(now.getTime() + lease * 1000) : null,
        now,
      );
      return { kind: 'text', body: challenge };
    }
    const token = this.settings.verifyToken();
    if (!token || !safeEqual(query['hub.verify_token'] ?? '', token)) throw unverified('The verify token does not match.');
    return { kind: 'text', body: challenge };
  }

  /** Verifies and records one delivery; the events are processed by a job (the platform gets its 200 at once). */
  async receive(name: string, headers: Record<string, string | string[] | undefined>, raw: Buffer) {
    const platform = knownPlatform(name);
    const header = (h: string) => {
      const v = headers[h];
      return Array.isArray(v) ? v[0] : v;
    };
    const secret = this.settings.secret(platform);
    let events: InboundEvent[];
    if (platform === 'youtube') {
      if (!verifyWebSubSignature(header('x-hub-signature'), raw, secret)) throw badSignature();
      events = parseYoutubeFeed(raw.toString('utf8'));
    } else if (platform === 'x') {
      if (!verifyXSignature(header('x-twitter-webhooks-signature'), raw, secret)) throw badSignature();
      events = parseXDelivery(parseJson(raw));
    } else if (header('x-hub-signature-256') !== undefined) {
      if (!verifyMetaSignature(header('x-hub-signature-256'), raw, secret)) throw badSignature();
      events = parseMetaDelivery(parseJson(raw));
    } else {
      // Meta's deauthorize callback: a form with a signed_request signed by the app secret
      const signed = new URLSearchParams(raw.toString('utf8')).get('signed_request');
      const who = signed ? verifySignedRequest(signed, secret) : null;
      if (!who) throw badSignature();
      events = [{ kind: 'deauthorized', accountId: who.userId }];
    }
    const at = this.deps.clock.now();
    const dedupeKey = createHash('sha256').update(raw).digest('hex');
    await this.deps.jobs.ensureQueue({ ...PROVIDER_WEBHOOK_PROCESS_QUEUE, handler: async () => undefined });
    const id = await this.db.transaction().execute(async (tx) => {
      const inserted = await repo.insertDelivery(tx, {
        id: newId('pwd'),
        platform,
        dedupeKey,
        payload: { events },
        eventCount: events.length,
        at,
      });
      if (inserted && events.length > 0)
        await this.deps.jobs.send(PROVIDER_WEBHOOK_PROCESS_JOB, { deliveryId: inserted }, { tx, retryLimit: 3, retryDelay: 5 });
      if (inserted && events.length === 0) await repo.finishDelivery(tx, inserted, { results: [] }, at);
      return inserted;
    });
    return { received: true as const, duplicate: id === null, events: events.length };
  }

  /** Applies a recorded delivery's events; each action is idempotent, so a job retry is safe. */
  async process(deliveryId: string): Promise<void> {
    const delivery = await repo.getDelivery(this.db, deliveryId);
    if (!delivery || delivery.processed_at) return;
    const platform = delivery.platform as InboundPlatform;
    const events = ((delivery.payload as { events?: InboundEvent[] }).events ?? []) as InboundEvent[];
    const results: Array<Record<string, unknown>> = [];
    for (const event of events) {
      try {
        results.push({ kind: event.kind, ...(await this.apply(platform, event)) });
      } catch (err) {
        results.push({ kind: event.kind, error: isAppError(err) ? err.code : (err as Error).message.slice(0, 200) });
      }
    }
    await repo.finishDelivery(this.db, deliveryId, { results }, this.deps.clock.now());
  }

  private async apply(platform: InboundPlatform, event: InboundEvent): Promise<Record<string, unknown>> {
    const platforms = accountPlatforms(platform);
    if (event.kind === 'deauthorized') return this.deauthorized(platforms, event.accountId);
    if (!event.accountId) return { matched: 0 };
    const channels = await this.channels.ofExternalAccount(this.db, platforms, event.accountId);
    const targets = await this.notices().targetsOfPost(
      platforms,
      channels.map((c) => c.channelAccountId),
      event.providerPostId,
    );
    if (event.kind === 'video') {
      const changes = [];
      for (const t of targets)
        changes.push(event.deleted ? 'unchanged' : await this.notices().videoLive(t.organizationId, t.id, event.url));
      return { matched: targets.length, changes };
    }
    let synced = 0;
    for (const t of targets) {
      if (t.state !== 'published' || !(this.comments().platforms as readonly string[]).includes(t.platform)) continue;
      await this.comments().service.sync(t.organizationId, {
        organizationId: t.organizationId,
        brandId: t.brandId,
        channelAccountId: t.channelAccountId,
        platform: t.platform as CommentPlatform,
        providerPostId: t.providerPostId,
        postTargetId: t.id,
        dryRun: false,
      });
      synced += 1;
    }
    return { matched: targets.length, synced };
  }

  private async deauthorized(platforms: Platform[], accountId: string) {
    const channels = await this.channels.ofExternalAccount(this.db, platforms, accountId);
    let marked = 0;
    for (const c of channels) {
      if (c.state === 'reconnect_required') continue;
      // skipped where the transition table forbids the move; the state change records its webhook event
      const moved = await this.db
        .transaction()
        .execute((tx) =>
          this.channels.markTokenProblem(
            tx,
            c.organizationId,
            c.channelAccountId,
            'reconnect_required',
            'deauthorized_on_platform',
            this.deps.clock.now(),
          ),
        );
      if (moved) marked += 1;
    }
    return { matched: channels.length, marked };
  }
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('invalid_request', { message: 'The delivery body is not JSON.' });
  }
}
