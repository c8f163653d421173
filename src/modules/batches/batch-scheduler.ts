/**
 * The batch scheduler: a pure function from (policy, items, existing scheduled posts, seed, from) to
 * assignments and warnings. No I/O and no clock: the same input always gives the same schedule, which
 * is what lets a commit reproduce its preview.
 *
 * How it decides:
 * 1. Slot occurrences: every slot's localTime on every matching ISO weekday in the slot's own timezone,
 *    from `from` over `horizonDays` days, converted to instants with Intl (DST-correct).
 * 2. Order: manualScheduleAt items first (placed as given), then by priority (higher first); inside
 *    one priority products are taken round-robin, so one product's items interleave with the others.
 * 3. Each target takes the earliest occurrence of a slot that accepts it (a slot scoped to a platform or
 *    channel only takes those targets) where, on that channel, the seeded jittered time keeps
 *    minGapMinutes to every other post, productCooldownMinutes to posts of the same product, the
 *    platform's 24-hour publishing cap and the 72-hour duplicate text rule.
 * 4. A target that fits nowhere is unscheduled with a warning naming the rule that blocked it most.
 */

import {
  DAY,
  DUPLICATE_WINDOW_MS,
  fnv,
  insertSorted,
  jitterFor,
  lowerBound,
  MIN,
  mix,
  type Occurrence,
  overCap,
  PLATFORM_DAILY_CAPS,
  type SchedulerSlot,
  slotOccurrences,
  within,
} from './batch-calendar.js';

export { isoWeekday, isTimeZone, zonedInstant } from '../../platform/time/zoned-time.js';
export type { SchedulerSlot } from './batch-calendar.js';
export { PLATFORM_DAILY_CAPS } from './batch-calendar.js';

type Rule =
  | 'min_gap'
  | 'product_cooldown'
  | 'platform_daily_cap'
  | 'duplicate_text_72h'
  | 'no_matching_slot'
  | 'horizon_exhausted'
  | 'manual_schedule_conflict'
  | 'manual_schedule_out_of_range'
  | 'plan_validation'
  | 'product_link_comment_unsupported'
  | 'product_link_missing'
  | 'product_link_tracking_skipped';

interface SchedulerTarget {
  platform: string;
  channelAccountId: string;
  /** set when plan validation blocks this target: it stays unscheduled */
  blocked?: { message: string };
}

export interface SchedulerItem {
  clientAssetId: string;
  productId: string;
  text: string;
  priority?: number;
  manualScheduleAt?: number;
  targets: SchedulerTarget[];
}

export interface ExistingPost {
  channelAccountId: string;
  platform: string;
  at: number;
  productId?: string | null;
  text?: string | null;
}

export interface SchedulerInput {
  policy: { horizonDays: number; slots: SchedulerSlot[] };
  items: SchedulerItem[];
  existing: ExistingPost[];
  seed: string;
  from: number;
}

export interface Assignment {
  itemIndex: number;
  targetIndex: number;
  clientAssetId: string;
  productId: string;
  platform: string;
  channelAccountId: string;
  slotId: string | null;
  /** the occurrence's un-jittered instant (null for manualScheduleAt) */
  slotAt: string | null;
  scheduledAt: string;
  jitterSeconds: number;
  manual: boolean;
}

/** Target j of item i placed at `at`: in a slot occurrence, or as given (manualScheduleAt) when slot is null. */
function assignmentOf(
  i: number,
  j: number,
  item: SchedulerItem,
  target: SchedulerTarget,
  at: number,
  slot: { id: string; at: number } | null,
  jitterSeconds: number,
): Assignment {
  return {
    itemIndex: i,
    targetIndex: j,
    clientAssetId: item.clientAssetId,
    productId: item.productId,
    platform: target.platform,
    channelAccountId: target.channelAccountId,
    slotId: slot ? slot.id : null,
    slotAt: slot ? new Date(slot.at).toISOString() : null,
    scheduledAt: new Date(at).toISOString(),
    jitterSeconds,
    manual: slot === null,
  };
}

export interface SchedulerWarning {
  rule: Rule;
  itemIndex: number | null;
  targetIndex: number | null;
  clientAssetId: string | null;
  channelAccountId: string | null;
  message: string;
  unscheduled: boolean;
}

export interface SchedulerResult {
  assignments: Assignment[];
  warnings: SchedulerWarning[];
}

interface ChannelState {
  all: number[];
  /** minGap of the slot an assignment took, for symmetric gap checks */
  gapOf: Map<number, number>;
  products: Map<string, number[]>;
  /** cooldown of the slot an assignment took, per product and time */
  cooldownOf: Map<string, Map<number, number>>;
  /** times per normalized text (textKey) */
  texts: Map<string, number[]>;
}

const textKey = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();

export function scheduleBatch(input: SchedulerInput): SchedulerResult {
  const { policy, items, from } = input;
  const horizonEnd = from + policy.horizonDays * DAY;
  const occurrences = slotOccurrences(policy.slots, from, policy.horizonDays);
  const maxGap = Math.max(0, ...policy.slots.map((s) => s.minGapMinutes * MIN));
  const maxCooldown = Math.max(0, ...policy.slots.map((s) => s.productCooldownMinutes * MIN));
  const seedHash = fnv(input.seed);
  const channels = new Map<string, ChannelState>();
  const stateOf = (id: string): ChannelState => {
    let c = channels.get(id);
    if (!c) {
      c = { all: [], gapOf: new Map(), products: new Map(), cooldownOf: new Map(), texts: new Map() };
      channels.set(id, c);
    }
    return c;
  };
  // `key`: the text's textKey, computed once per item by the callers (check runs for every occurrence
  // a target tries; building the key there allocated three strings per try)
  const add = (c: ChannelState, t: number, productId: string | null | undefined, key: string, gap: number, cooldown: number) => {
    insertSorted(c.all, t);
    c.gapOf.set(t, Math.max(c.gapOf.get(t) ?? 0, gap));
    if (productId) {
      const l = c.products.get(productId) ?? [];
      insertSorted(l, t);
      c.products.set(productId, l);
      let cooldowns = c.cooldownOf.get(productId);
      if (!cooldowns) {
        cooldowns = new Map();
        c.cooldownOf.set(productId, cooldowns);
      }
      cooldowns.set(t, Math.max(cooldowns.get(t) ?? 0, cooldown));
    }
    if (key !== '') {
      const l = c.texts.get(key) ?? [];
      insertSorted(l, t);
      c.texts.set(key, l);
    }
  };
  for (const e of input.existing) add(stateOf(e.channelAccountId), e.at, e.productId, e.text ? textKey(e.text) : '', 0, 0);

  /** The first rule t breaks on this channel, or null. */
  const check = (
    c: ChannelState,
    platform: string,
    t: number,
    gap: number,
    cooldown: number,
    productId: string,
    key: string,
  ): Rule | null => {
    // the other post's own gap counts too (its slot may ask for more)
    if (within(c.all, t, gap)) return 'min_gap';
    if (maxGap > gap) {
      const lo = lowerBound(c.all, t - maxGap + 1);
      for (let i = lo; i < c.all.length && c.all[i]! < t + maxGap; i++) {
        const o = c.all[i]!;
        if (Math.abs(o - t) < (c.gapOf.get(o) ?? 0)) return 'min_gap';
      }
    }
    const same = c.products.get(productId);
    if (within(same, t, cooldown)) return 'product_cooldown';
    if (same && maxCooldown > cooldown) {
      const cooldowns = c.cooldownOf.get(productId);
      const lo = lowerBound(same, t - maxCooldown + 1);
      for (let i = lo; i < same.length && same[i]! < t + maxCooldown; i++) {
        const o = same[i]!;
        if (Math.abs(o - t) < (cooldowns?.get(o) ?? 0)) return 'product_cooldown';
      }
    }
    const cap = PLATFORM_DAILY_CAPS[platform];
    if (cap !== undefined && overCap(c.all, t, cap)) return 'platform_daily_cap';
    if (key !== '' && within(c.texts.get(key), t, DUPLICATE_WINDOW_MS)) return 'duplicate_text_72h';
    return null;
  };

  const assignments: Assignment[] = [];
  const warnings: SchedulerWarning[] = [];
  const warn = (w: Omit<SchedulerWarning, 'unscheduled'> & { unscheduled?: boolean }) => warnings.push({ unscheduled: false, ...w });

  // ---- order: manual first, then priority desc, round-robin by product inside a priority
  const indices = items.map((_, i) => i);
  const manual = indices.filter((i) => items[i]!.manualScheduleAt !== undefined);
  const rest = indices.filter((i) => items[i]!.manualScheduleAt === undefined);
  const byPriority = new Map<number, number[]>();
  for (const i of rest) {
    const p = items[i]!.priority ?? 0;
    const l = byPriority.get(p);
    if (l) l.push(i);
    else byPriority.set(p, [i]);
  }
  const ordered: number[] = [];
  for (const p of [...byPriority.keys()].sort((a, b) => b - a)) {
    const queues = new Map<string, number[]>();
    for (const i of byPriority.get(p)!) {
      const k = items[i]!.productId;
      const l = queues.get(k);
      if (l) l.push(i);
      else queues.set(k, [i]);
    }
    const lists = [...queues.values()];
    for (let round = 0; lists.some((l) => l.length > round); round++) for (const l of lists) if (round < l.length) ordered.push(l[round]!);
  }

  for (const i of manual) {
    const item = items[i]!;
    const at = item.manualScheduleAt!;
    const itemText = textKey(item.text);
    item.targets.forEach((target, j) => {
      const base = { itemIndex: i, targetIndex: j, clientAssetId: item.clientAssetId, channelAccountId: target.channelAccountId };
      if (target.blocked) {
        warn({ ...base, rule: 'plan_validation', message: target.blocked.message, unscheduled: true });
        return;
      }
      if (at < from - MIN || at >= horizonEnd) {
        warn({
          ...base,
          rule: 'manual_schedule_out_of_range',
          message: `manualScheduleAt ${new Date(at).toISOString()} is outside the batch window ${new Date(from).toISOString()} .. ${new Date(horizonEnd).toISOString()}.`,
          unscheduled: true,
        });
        return;
      }
      const c = stateOf(target.channelAccountId);
      const gap = maxGap;
      const broken = check(c, target.platform, at, gap, maxCooldown, item.productId, itemText);
      if (broken)
        warn({
          ...base,
          rule: 'manual_schedule_conflict',
          message: `manualScheduleAt is kept as given although it breaks ${broken} on channel ${target.channelAccountId}.`,
        });
      add(c, at, item.productId, itemText, 0, 0);
      assignments.push(assignmentOf(i, j, item, target, at, null, 0));
    });
  }

  // occurrences each target may use, cached per (platform, channel)
  const eligibleCache = new Map<string, Occurrence[]>();
  const eligible = (platform: string, channelAccountId: string) => {
    const key = `${platform}|${channelAccountId}`;
    let l = eligibleCache.get(key);
    if (!l) {
      l = occurrences.filter(
        (o) =>
          (!o.slot.platform || o.slot.platform === platform) && (!o.slot.channelAccountId || o.slot.channelAccountId === channelAccountId),
      );
      eligibleCache.set(key, l);
    }
    return l;
  };

  const firstOpen = new Map<string, number>();
  const fullCount = new Map<string, number>();
  const fullMessage = new Map<string, string>();
  for (const i of ordered) {
    const item = items[i]!;
    const itemText = textKey(item.text);
    item.targets.forEach((target, j) => {
      const base = { itemIndex: i, targetIndex: j, clientAssetId: item.clientAssetId, channelAccountId: target.channelAccountId };
      if (target.blocked) {
        warn({ ...base, rule: 'plan_validation', message: target.blocked.message, unscheduled: true });
        return;
      }
      const occ = eligible(target.platform, target.channelAccountId);
      if (occ.length === 0) {
        warn({
          ...base,
          rule: 'no_matching_slot',
          message: `No slot of the policy takes ${target.platform} channel ${target.channelAccountId}.`,
          unscheduled: true,
        });
        return;
      }
      const c = stateOf(target.channelAccountId);
      const blockers = new Map<Rule, number>();
      // skip the occurrences every target of this channel finds full (posts only get added, so a
      // full occurrence stays full): a post closer than minGap to every time of its jitter window
      const key = `${target.platform}|${target.channelAccountId}`;
      let start = firstOpen.get(key) ?? 0;
      while (start < occ.length) {
        const o = occ[start]!;
        const s = o.slot;
        const earliest = o.base + s.jitterSecondsMin * 1000;
        const latest = o.base + s.jitterSecondsMax * 1000;
        if (latest < from || earliest >= horizonEnd) {
          start++;
          continue;
        }
        const gap = s.minGapMinutes * MIN;
        const lo = latest - gap + 1;
        const hi = earliest + gap;
        if (lo < hi) {
          const k = lowerBound(c.all, lo);
          if (k < c.all.length && c.all[k]! < hi) {
            start++;
            fullCount.set(key, (fullCount.get(key) ?? 0) + 1);
            continue;
          }
        }
        break;
      }
      firstOpen.set(key, start);
      const full = fullCount.get(key) ?? 0;
      if (start === occ.length && full > 0) {
        // the channel is full for every target: one shared message
        let message = fullMessage.get(key);
        if (!message) {
          message = `No slot occurrence in the ${policy.horizonDays}-day horizon fits on channel ${target.channelAccountId}: min_gap blocked ${full}.`;
          fullMessage.set(key, message);
        }
        warnings.push({ ...base, rule: 'min_gap', message, unscheduled: true });
        return;
      }
      if (full > 0) blockers.set('min_gap', full);
      const targetHash = mix(seedHash, fnv(`${item.clientAssetId}|${target.channelAccountId}|${j}`));
      for (let k = start; k < occ.length; k++) {
        const o = occ[k]!;
        const s = o.slot;
        const jitter = jitterFor(targetHash, o.hash, s.jitterSecondsMin, s.jitterSecondsMax);
        const t = o.base + jitter * 1000;
        if (t < from || t >= horizonEnd) continue;
        const broken = check(c, target.platform, t, s.minGapMinutes * MIN, s.productCooldownMinutes * MIN, item.productId, itemText);
        if (broken) {
          blockers.set(broken, (blockers.get(broken) ?? 0) + 1);
          continue;
        }
        add(c, t, item.productId, itemText, s.minGapMinutes * MIN, s.productCooldownMinutes * MIN);
        assignments.push(assignmentOf(i, j, item, target, t, { id: s.id, at: o.base }, jitter));
        return;
      }
      const top = [...blockers.entries()].sort((a, b) => b[1] - a[1])[0];
      const rule: Rule = top ? top[0] : 'horizon_exhausted';
      warn({
        ...base,
        rule,
        message: top
          ? `No slot occurrence in the ${policy.horizonDays}-day horizon fits on channel ${target.channelAccountId}: ${[...blockers.entries()].map(([r, n]) => `${r} blocked ${n}`).join(', ')}.`
          : `No slot occurrence is left in the ${policy.horizonDays}-day horizon for channel ${target.channelAccountId}.`,
        unscheduled: true,
      });
    });
  }
  assignments.sort((a, b) => a.scheduledAt.localeCompare(b.scheduledAt) || a.itemIndex - b.itemIndex || a.targetIndex - b.targetIndex);
  return { assignments, warnings };
}
