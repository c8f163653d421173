/**
 * Whether a stored preview's schedule still holds (a commit naming its `batchPreviewId` persists exactly
 * that schedule or nothing). Pure, like the scheduler: given the policy, the items as they are now, the
 * channels' posts as they are now and the stored assignments, it lists every assignment that now breaks
 * a rule the scheduler keeps. A post that disappeared since the preview only leaves more room, so only
 * new or moved posts, a target now blocked by plan validation and a time already past can break it.
 */
import { DUPLICATE_WINDOW_MS, insertSorted, MIN, overCap, PLATFORM_DAILY_CAPS, within } from './batch-calendar.js';
import type { Assignment, ExistingPost, SchedulerItem, SchedulerSlot } from './batch-scheduler.js';

export interface PreviewConflict {
  itemIndex: number;
  targetIndex: number;
  clientAssetId: string;
  channelAccountId: string;
  scheduledAt: string;
  /** min_gap, product_cooldown, platform_daily_cap, duplicate_text_72h, plan_validation or scheduled_time_passed */
  rule: string;
}

interface ChannelPosts {
  all: number[];
  products: Map<string, number[]>;
  texts: Map<string, number[]>;
}

const textKey = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();

export function heldScheduleConflicts(input: {
  slots: SchedulerSlot[];
  items: SchedulerItem[];
  existing: ExistingPost[];
  assignments: Assignment[];
  now: number;
}): PreviewConflict[] {
  const channels = new Map<string, ChannelPosts>();
  const postsOf = (id: string) => {
    let c = channels.get(id);
    if (!c) {
      c = { all: [], products: new Map(), texts: new Map() };
      channels.set(id, c);
    }
    return c;
  };
  const push = (m: Map<string, number[]>, k: string, t: number) => {
    const l = m.get(k) ?? [];
    insertSorted(l, t);
    m.set(k, l);
  };
  for (const e of input.existing) {
    const c = postsOf(e.channelAccountId);
    insertSorted(c.all, e.at);
    if (e.productId) push(c.products, e.productId, e.at);
    if (e.text) push(c.texts, textKey(e.text), e.at);
  }
  // the cap counts the schedule's own posts too (the preview placed them under the cap with the old posts)
  const capped = new Map<string, number[]>();
  for (const a of input.assignments) {
    const l = capped.get(a.channelAccountId) ?? [...(channels.get(a.channelAccountId)?.all ?? [])];
    insertSorted(l, Date.parse(a.scheduledAt));
    capped.set(a.channelAccountId, l);
  }
  const slots = new Map(input.slots.map((s) => [s.id, s]));

  const conflicts: PreviewConflict[] = [];
  for (const a of input.assignments) {
    const item = input.items[a.itemIndex];
    const target = item?.targets[a.targetIndex];
    const t = Date.parse(a.scheduledAt);
    const conflict = (rule: string) =>
      conflicts.push({
        itemIndex: a.itemIndex,
        targetIndex: a.targetIndex,
        clientAssetId: a.clientAssetId,
        channelAccountId: a.channelAccountId,
        scheduledAt: a.scheduledAt,
        rule,
      });
    if (!item || !target || target.channelAccountId !== a.channelAccountId || target.blocked) {
      conflict('plan_validation');
      continue;
    }
    if (t < input.now) {
      conflict('scheduled_time_passed');
      continue;
    }
    // a manualScheduleAt is kept as given whatever it breaks (the preview only warned)
    if (a.manual) continue;
    const slot = a.slotId ? slots.get(a.slotId) : undefined;
    const c = channels.get(a.channelAccountId);
    const gap = (slot?.minGapMinutes ?? 0) * MIN;
    const cooldown = (slot?.productCooldownMinutes ?? 0) * MIN;
    if (c && within(c.all, t, gap)) conflict('min_gap');
    else if (c && within(c.products.get(item.productId), t, cooldown)) conflict('product_cooldown');
    else if (c && item.text.trim() !== '' && within(c.texts.get(textKey(item.text)), t, DUPLICATE_WINDOW_MS))
      conflict('duplicate_text_72h');
    else {
      const cap = PLATFORM_DAILY_CAPS[a.platform];
      const all = capped.get(a.channelAccountId)!;
      // overCap asks whether one more post fits: count the list without this post
      const others = [...all];
      others.splice(others.indexOf(t), 1);
      if (cap !== undefined && overCap(others, t, cap)) conflict('platform_daily_cap');
    }
  }
  return conflicts;
}
