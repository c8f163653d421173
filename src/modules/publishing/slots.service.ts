/**
 * Publish slot recommendation (GET /v1/publish/slots): the next free time from the profile's saved
 * scheduleSettings.batchPolicy (the brand's default profile when none is named; a built-in policy when
 * none is saved). Each slot occurrence is localTime on a matching weekday in the slot's timezone (the
 * brand's timezone when the slot names none), moved by a jitter inside [jitterSecondsMin,
 * jitterSecondsMax] that is stable per slot, day and channel; a time closer than minGapMinutes to an
 * already scheduled target of the same channel (or platform/brand, when no channel is given) is a
 * conflict, and the search moves within the jitter window, then to the next occurrence.
 */
import { createHash } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { AppError } from '../../platform/errors.js';
import { isoWeekday, isTimeZone, localParts, zonedInstant } from '../../platform/time/zoned-time.js';
import { PLATFORMS } from '../../providers/provider.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { ChannelGateway } from './channel-gateway.js';
import type { PublishingDeps } from './publishing.deps.js';
import type { SlotQueryT } from './publishing.schemas.js';
import { targetsRepository } from './targets.repository.js';

const Slot = Type.Object({
  id: Type.String(),
  localTime: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' }),
  label: Type.Optional(Type.String()),
  timezone: Type.Optional(Type.String()),
  weekdays: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 7 }))),
  platform: Type.Optional(Type.Union(PLATFORMS.map((p) => Type.Literal(p)))),
  channelAccountId: Type.Optional(Type.String()),
  jitterSecondsMin: Type.Optional(Type.Integer({ minimum: -3600, maximum: 3600 })),
  jitterSecondsMax: Type.Optional(Type.Integer({ minimum: -3600, maximum: 3600 })),
  minGapMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 1440 })),
  productCooldownMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 43200 })),
});
const Policy = Type.Object({
  id: Type.Optional(Type.String()),
  horizonDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 60 })),
  slots: Type.Array(Slot, { minItems: 1 }),
});
type PolicyT = Static<typeof Policy>;
type SlotT = Static<typeof Slot>;

/** Used when no profile has a saved batch policy: three daily slots in the brand's timezone. */
const DEFAULT_BATCH_POLICY: PolicyT = {
  id: 'default',
  horizonDays: 14,
  slots: [
    { id: 'morning', localTime: '09:00' },
    { id: 'midday', localTime: '12:30' },
    { id: 'evening', localTime: '18:00' },
  ],
};

const MAX_CANDIDATES = 5;
const STEP_MS = 60_000;

export class SlotsService {
  constructor(
    private readonly deps: PublishingDeps,
    private readonly channels: ChannelGateway,
    private readonly brands: BrandsReadPort,
  ) {}

  async recommend(organizationId: string, q: SlotQueryT) {
    const db = this.deps.database.db;
    const bad = (path: string, message: string) =>
      new AppError('invalid_public_publish_slot_query', {
        message,
        fields: [{ path: [path], source: 'query' }],
      });
    const brand = await this.brands.brand(db, organizationId, q.brandId);
    // another organization's id answers exactly like a made-up one: 404 of the kind
    if (!brand) throw new AppError('brand_not_found', { message: `No brand ${q.brandId} in the organization.` });
    let platform = q.platform ?? null;
    if (q.channelAccountId) {
      const ch = (await this.channels.facts(db, organizationId, [q.channelAccountId])).get(q.channelAccountId);
      if (!ch)
        throw new AppError('channel_account_not_found', { message: `No channel account ${q.channelAccountId} in the organization.` });
      if (platform && ch.platform !== platform) throw bad('platform', `Channel ${q.channelAccountId} is a ${ch.platform} channel.`);
      platform = ch.platform as typeof platform;
    }
    let source: Record<string, unknown> = { kind: 'default' };
    let policy: PolicyT = DEFAULT_BATCH_POLICY;
    const profileId = q.profileId ?? (await this.channels.defaultProfileId(db, organizationId, q.brandId));
    if (q.profileId && !(await this.channels.scheduleSettings(db, organizationId, q.profileId)))
      throw new AppError('publishing_profile_not_found', { message: `No publishing profile ${q.profileId} in the organization.` });
    if (profileId) {
      const saved = (await this.channels.scheduleSettings(db, organizationId, profileId))?.batchPolicy;
      if (saved !== undefined) {
        if (!Value.Check(Policy, saved))
          throw bad(
            'profileId',
            `The saved batchPolicy of profile ${profileId} is not valid: ${[...Value.Errors(Policy, saved)][0]?.message}.`,
          );
        policy = saved;
        source = { kind: 'profile', profileId };
      }
    }
    const now = this.deps.clock.now();
    const from = q.from && Date.parse(q.from) > now.getTime() ? new Date(q.from) : now;
    const horizonDays = policy.horizonDays ?? 14;
    const slots = policy.slots.filter(
      (s) =>
        (!s.platform || !platform || s.platform === platform) &&
        (!s.channelAccountId || !q.channelAccountId || s.channelAccountId === q.channelAccountId),
    );
    for (const s of slots) {
      const tz = s.timezone ?? brand.timezone;
      if (!isTimeZone(tz)) throw bad('profileId', `Slot ${s.id} has an unknown timezone ${tz}.`);
    }
    const maxGapMs = Math.max(0, ...slots.map((s) => (s.minGapMinutes ?? 120) * 60_000));
    const horizonEnd = new Date(from.getTime() + (horizonDays + 1) * 86_400_000);
    const placed = await targetsRepository.placedBetween(db, organizationId, {
      brandId: q.brandId,
      from: new Date(from.getTime() - maxGapMs - 3_600_000),
      to: new Date(horizonEnd.getTime() + maxGapMs + 3_600_000),
      channelAccountId: q.channelAccountId,
      platform: platform ?? undefined,
    });
    const existing = placed.map((r) => ({
      id: r.id,
      channelAccountId: r.channel_account_id,
      at: new Date(r.at).getTime(),
    }));

    const occurrences: Array<{ slot: SlotT; base: number; date: string }> = [];
    for (const s of slots) {
      const tz = s.timezone ?? brand.timezone;
      const start = localParts(from, tz);
      const [hh, mm] = s.localTime.split(':').map(Number) as [number, number];
      for (let d = 0; d <= horizonDays; d++) {
        const day = new Date(Date.UTC(start.year, start.month - 1, start.day + d));
        const y = day.getUTCFullYear();
        const m = day.getUTCMonth() + 1;
        const dd = day.getUTCDate();
        if (s.weekdays && s.weekdays.length > 0 && !s.weekdays.includes(isoWeekday(y, m, dd))) continue;
        occurrences.push({
          slot: s,
          base: zonedInstant(y, m, dd, hh, mm, tz),
          date: `${y}-${String(m).padStart(2, '0')}-${String(dd).padStart(2, '0')}`,
        });
      }
    }
    occurrences.sort((a, b) => a.base - b.base || a.slot.id.localeCompare(b.slot.id));

    const candidates: Array<Record<string, unknown>> = [];
    const conflicts: Array<Record<string, unknown>> = [];
    let checked = 0;
    for (const o of occurrences) {
      if (candidates.length >= MAX_CANDIDATES) break;
      const jMin = (o.slot.jitterSecondsMin ?? -600) * 1000;
      const jMax = Math.max(jMin, (o.slot.jitterSecondsMax ?? 600) * 1000);
      const lo = Math.max(o.base + jMin, from.getTime());
      const hi = o.base + jMax;
      if (hi < from.getTime()) continue;
      checked += 1;
      const gapMs = (o.slot.minGapMinutes ?? 120) * 60_000;
      const seed =
        createHash('sha256')
          .update(`${o.slot.id}:${o.date}:${q.channelAccountId ?? platform ?? q.brandId}`)
          .digest()
          .readUInt32BE(0) / 0xffffffff;
      const preferred = Math.min(hi, Math.max(lo, o.base + jMin + Math.round((seed * (jMax - jMin)) / STEP_MS) * STEP_MS));
      const clash = (t: number) => existing.filter((e) => Math.abs(e.at - t) < gapMs);
      let chosen: number | null = null;
      // search outward from the preferred time, minute by minute, inside the jitter window
      for (let k = 0; k <= Math.ceil((hi - lo) / STEP_MS) * 2 + 1 && chosen === null; k++) {
        const offset = (k % 2 === 0 ? 1 : -1) * Math.ceil(k / 2) * STEP_MS;
        const t = preferred + offset;
        if (t < lo || t > hi) continue;
        if (clash(t).length === 0) chosen = t;
      }
      const slotInfo = {
        slotId: o.slot.id,
        label: o.slot.label ?? null,
        localDate: o.date,
        localTime: o.slot.localTime,
        timezone: o.slot.timezone ?? brand.timezone,
        windowStart: new Date(lo).toISOString(),
        windowEnd: new Date(hi).toISOString(),
      };
      if (chosen === null) {
        conflicts.push({
          ...slotInfo,
          minGapMinutes: gapMs / 60_000,
          conflictingTargets: clash(preferred).map((e) => ({
            postTargetId: e.id,
            channelAccountId: e.channelAccountId,
            at: new Date(e.at).toISOString(),
          })),
        });
        continue;
      }
      candidates.push({
        ...slotInfo,
        scheduleAt: new Date(chosen).toISOString(),
      });
    }
    return {
      mode: 'preview' as const,
      organizationId,
      recommendation: candidates[0]
        ? {
            scheduleAt: candidates[0].scheduleAt as string,
            slotId: candidates[0].slotId,
          }
        : null,
      checkedSlotCount: checked,
      policy: {
        ...policy,
        source,
        brandTimezone: brand.timezone,
        platform,
        channelAccountId: q.channelAccountId ?? null,
        from: from.toISOString(),
      },
      candidates,
      conflicts,
    };
  }
}
