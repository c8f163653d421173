/** The pure batch scheduler: property tests over random policies and items, and DST weeks. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  isoWeekday,
  PLATFORM_DAILY_CAPS,
  type SchedulerInput,
  type SchedulerSlot,
  scheduleBatch,
  zonedInstant,
} from '../../src/modules/batches/batch-scheduler.js';

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'Australia/Sydney'];
const CHANNELS = [
  { platform: 'facebook_page', channelAccountId: 'cha_fb' },
  { platform: 'threads', channelAccountId: 'cha_th' },
  { platform: 'x', channelAccountId: 'cha_x' },
];

function localOf(instant: number, tz: string) {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    })
      .formatToParts(new Date(instant))
      .map((x) => [x.type, Number(x.value)]),
  ) as Record<string, number>;
  return { ...p, weekday: isoWeekday(p.year!, p.month!, p.day!) } as {
    year: number;
    month: number;
    day: number;
    hour: number;
    minute: number;
    weekday: number;
  };
}

const slotArb = (i: number) =>
  fc
    .record({
      hour: fc.integer({ min: 0, max: 23 }),
      minute: fc.integer({ min: 0, max: 59 }),
      timezone: fc.constantFrom(...ZONES),
      weekdays: fc.option(fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }), { nil: undefined }),
      j1: fc.integer({ min: -3600, max: 3600 }),
      j2: fc.integer({ min: -3600, max: 3600 }),
      minGapMinutes: fc.integer({ min: 0, max: 300 }),
      productCooldownMinutes: fc.integer({ min: 0, max: 3000 }),
      scope: fc.option(fc.constantFrom(...CHANNELS), { nil: undefined }),
    })
    .map(
      (s): SchedulerSlot => ({
        id: `s${i}`,
        localTime: `${String(s.hour).padStart(2, '0')}:${String(s.minute).padStart(2, '0')}`,
        timezone: s.timezone,
        ...(s.weekdays ? { weekdays: s.weekdays } : {}),
        jitterSecondsMin: Math.min(s.j1, s.j2),
        jitterSecondsMax: Math.max(s.j1, s.j2),
        minGapMinutes: s.minGapMinutes,
        productCooldownMinutes: s.productCooldownMinutes,
        ...(s.scope ? { channelAccountId: s.scope.channelAccountId } : {}),
      }),
    );

const inputArb: fc.Arbitrary<SchedulerInput> = fc
  .record({
    slotCount: fc.integer({ min: 1, max: 4 }),
    horizonDays: fc.integer({ min: 1, max: 10 }),
    from: fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }),
    seed: fc.string({ maxLength: 8 }),
    items: fc.array(
      fc.record({
        product: fc.integer({ min: 0, max: 4 }),
        priority: fc.option(fc.integer({ min: -2, max: 2 }), { nil: undefined }),
        textVariant: fc.integer({ min: 0, max: 3 }),
        channels: fc.subarray(CHANNELS, { minLength: 1 }),
      }),
      { minLength: 1, maxLength: 40 },
    ),
  })
  .chain((r) =>
    fc.tuple(...Array.from({ length: r.slotCount }, (_, i) => slotArb(i))).map((slots) => ({
      policy: { horizonDays: r.horizonDays, slots },
      from: r.from,
      seed: r.seed,
      existing: [],
      items: r.items.map((it, i) => ({
        clientAssetId: `a${i}`,
        productId: `prd_${it.product}`,
        text: `Post ${i} variant ${it.textVariant}`,
        ...(it.priority !== undefined ? { priority: it.priority } : {}),
        targets: it.channels.map((c) => ({ ...c })),
      })),
    })),
  );

describe('batch scheduler properties', () => {
  it('keeps minGap and product cooldown per channel, jitter inside the window on allowed weekdays, deterministic', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const out = scheduleBatch(input);
        const again = scheduleBatch(structuredClone(input));
        assert.deepEqual(again, out, 'the same input gives the same schedule');
        const slots = new Map(input.policy.slots.map((s) => [s.id, s]));
        const horizonEnd = input.from + input.policy.horizonDays * 86_400_000;
        for (const a of out.assignments) {
          const s = slots.get(a.slotId!)!;
          const t = Date.parse(a.scheduledAt);
          const base = Date.parse(a.slotAt!);
          assert.equal((t - base) / 1000, a.jitterSeconds);
          assert.ok(a.jitterSeconds >= s.jitterSecondsMin && a.jitterSeconds <= s.jitterSecondsMax, 'jitter inside the window');
          assert.ok(t >= input.from && t < horizonEnd, 'inside the horizon');
          const local = localOf(base, s.timezone);
          if (s.weekdays) assert.ok(s.weekdays.includes(local.weekday), `weekday ${local.weekday} allowed by ${s.weekdays}`);
          if (!s.channelAccountId || s.channelAccountId === a.channelAccountId) assert.ok(true);
          else assert.fail('a channel-scoped slot took another channel');
        }
        const byChannel = new Map<string, typeof out.assignments>();
        for (const a of out.assignments) byChannel.set(a.channelAccountId, [...(byChannel.get(a.channelAccountId) ?? []), a]);
        for (const list of byChannel.values()) {
          for (let i = 0; i < list.length; i++)
            for (let j = i + 1; j < list.length; j++) {
              const a = list[i]!;
              const b = list[j]!;
              const d = Math.abs(Date.parse(a.scheduledAt) - Date.parse(b.scheduledAt));
              const sa = slots.get(a.slotId!)!;
              const sb = slots.get(b.slotId!)!;
              assert.ok(d >= Math.max(sa.minGapMinutes, sb.minGapMinutes) * 60_000, `minGap between ${a.scheduledAt} and ${b.scheduledAt}`);
              if (a.productId === b.productId)
                assert.ok(d >= Math.max(sa.productCooldownMinutes, sb.productCooldownMinutes) * 60_000, 'product cooldown');
            }
        }
        // every target is either assigned or unscheduled with a rule
        const placed = new Set(out.assignments.map((a) => `${a.itemIndex}:${a.targetIndex}`));
        const unscheduled = new Set(out.warnings.filter((w) => w.unscheduled).map((w) => `${w.itemIndex}:${w.targetIndex}`));
        for (const [i, it] of input.items.entries())
          for (const j of it.targets.keys())
            assert.ok(placed.has(`${i}:${j}`) !== unscheduled.has(`${i}:${j}`), `target ${i}:${j} accounted once`);
      }),
      { numRuns: 150, seed: 20261123 },
    );
  });

  it('never puts more posts in a 24-hour window than the platform cap (a cap of 3 on X for the test)', () => {
    const saved = PLATFORM_DAILY_CAPS.x;
    PLATFORM_DAILY_CAPS.x = 3;
    try {
      fc.assert(
        fc.property(inputArb, (input) => {
          const times = scheduleBatch(input)
            .assignments.filter((a) => a.platform === 'x')
            .map((a) => Date.parse(a.scheduledAt))
            .sort((a, b) => a - b);
          for (const [i, t] of times.entries()) assert.ok(times.filter((u, j) => j >= i && u < t + 86_400_000).length <= 3);
        }),
        { numRuns: 100, seed: 5 },
      );
    } finally {
      if (saved === undefined) delete PLATFORM_DAILY_CAPS.x;
      else PLATFORM_DAILY_CAPS.x = saved;
    }
  });

  it('interleaves products on a channel and places higher priority first', () => {
    const slots: SchedulerSlot[] = ['09:00', '12:00', '15:00', '18:00'].map((t, i) => ({
      id: `s${i}`,
      localTime: t,
      timezone: 'UTC',
      jitterSecondsMin: 0,
      jitterSecondsMax: 0,
      minGapMinutes: 60,
      productCooldownMinutes: 0,
    }));
    const items = [
      ...[0, 1, 2].map((i) => ({ clientAssetId: `a${i}`, productId: 'A', text: `A${i}`, targets: [CHANNELS[0]!] })),
      ...[0, 1, 2].map((i) => ({ clientAssetId: `b${i}`, productId: 'B', text: `B${i}`, targets: [CHANNELS[0]!] })),
      { clientAssetId: 'vip', productId: 'C', text: 'VIP', priority: 5, targets: [CHANNELS[0]!] },
    ];
    const out = scheduleBatch({ policy: { horizonDays: 3, slots }, items, existing: [], seed: 'x', from: Date.UTC(2026, 5, 1) });
    const order = out.assignments.map((a) => a.productId).join('');
    assert.equal(order, 'CABABAB');
  });

  it('respects existing posts, the duplicate text rule and the platform daily cap with rule names', () => {
    const from = Date.UTC(2026, 5, 1);
    const slot: SchedulerSlot = {
      id: 'hourly',
      localTime: '00:00',
      timezone: 'UTC',
      jitterSecondsMin: 0,
      jitterSecondsMax: 0,
      minGapMinutes: 0,
      productCooldownMinutes: 0,
    };
    // the same text twice on one channel within 72 h: only one fits in a 2-day horizon
    const dup = scheduleBatch({
      policy: { horizonDays: 2, slots: [slot] },
      items: [0, 1].map((i) => ({ clientAssetId: `d${i}`, productId: `p${i}`, text: 'Same text', targets: [CHANNELS[0]!] })),
      existing: [],
      seed: 's',
      from,
    });
    assert.equal(dup.assignments.length, 1);
    assert.equal(dup.warnings[0]?.rule, 'duplicate_text_72h');
    assert.ok(dup.warnings[0]?.unscheduled);
    // Threads: 250 posts per 24 h; 250 existing posts in the day before the slot block it
    const existing = Array.from({ length: PLATFORM_DAILY_CAPS.threads! }, (_, i) => ({
      channelAccountId: 'cha_th',
      platform: 'threads',
      at: from - 3_600_000 - i * 1000,
    }));
    const cappedInput = (horizonDays: number) => ({
      policy: { horizonDays, slots: [slot] },
      items: [{ clientAssetId: 'c', productId: 'p', text: 'Capped', targets: [CHANNELS[1]!] }],
      existing,
      seed: 's',
      from,
    });
    const blocked = scheduleBatch(cappedInput(1));
    assert.equal(blocked.assignments.length, 0);
    assert.equal(blocked.warnings[0]?.rule, 'platform_daily_cap');
    const capped = scheduleBatch(cappedInput(2));
    assert.equal(capped.assignments.length, 1, 'the next day is free again');
    assert.equal(capped.assignments[0]!.scheduledAt, new Date(from + 86_400_000).toISOString());
    // the cap also counts posts after the candidate: 250 posts an hour after the first occurrence block
    // it and the next day's (the same 24-hour window), not the day after
    const ahead = scheduleBatch({
      ...cappedInput(3),
      existing: existing.map((e, i) => ({ ...e, at: from + 3_600_000 + i * 1000 })),
    });
    assert.equal(ahead.assignments.length, 1);
    assert.equal(ahead.assignments[0]!.scheduledAt, new Date(from + 2 * 86_400_000).toISOString());
    const gap = scheduleBatch({
      policy: { horizonDays: 1, slots: [{ ...slot, minGapMinutes: 120 }] },
      items: [{ clientAssetId: 'g', productId: 'p', text: 'Gap', targets: [CHANNELS[2]!] }],
      existing: [0, 1].map((d) => ({ channelAccountId: 'cha_x', platform: 'x', at: from + d * 86_400_000 + 60_000 })),
      seed: 's',
      from,
    });
    assert.equal(gap.assignments.length, 0);
    assert.equal(gap.warnings[0]?.rule, 'min_gap');
    assert.match(gap.warnings[0]!.message, /min_gap blocked 1/);
  });

  it('honours manualScheduleAt with a conflict warning, and leaves a blocked target unscheduled', () => {
    const from = Date.UTC(2026, 5, 1);
    const slot: SchedulerSlot = {
      id: 'noon',
      localTime: '12:00',
      timezone: 'UTC',
      jitterSecondsMin: 0,
      jitterSecondsMax: 0,
      minGapMinutes: 120,
      productCooldownMinutes: 0,
    };
    const out = scheduleBatch({
      policy: { horizonDays: 2, slots: [slot] },
      items: [
        { clientAssetId: 'm', productId: 'p', text: 'Manual', manualScheduleAt: from + 12 * 3_600_000 + 60_000, targets: [CHANNELS[0]!] },
        {
          clientAssetId: 'n',
          productId: 'q',
          text: 'Normal',
          targets: [CHANNELS[0]!, { ...CHANNELS[1]!, blocked: { message: 'text_too_long: too long' } }],
        },
      ],
      existing: [{ channelAccountId: 'cha_fb', platform: 'facebook_page', at: from + 12 * 3_600_000 }],
      seed: 's',
      from,
    });
    const manual = out.assignments.find((a) => a.clientAssetId === 'm')!;
    assert.equal(manual.scheduledAt, new Date(from + 12 * 3_600_000 + 60_000).toISOString());
    assert.equal(manual.slotId, null);
    assert.ok(out.warnings.some((w) => w.rule === 'manual_schedule_conflict' && !w.unscheduled));
    const normal = out.assignments.find((a) => a.clientAssetId === 'n')!;
    assert.equal(normal.scheduledAt, new Date(from + 36 * 3_600_000).toISOString(), 'the next day: today is taken');
    assert.ok(out.warnings.some((w) => w.rule === 'plan_validation' && w.unscheduled && w.targetIndex === 1));
  });
});

describe('batch scheduler across DST changes', () => {
  const run = (tz: string, from: number, days: number) =>
    scheduleBatch({
      policy: {
        horizonDays: days,
        slots: [
          {
            id: 'nine',
            localTime: '09:00',
            timezone: tz,
            jitterSecondsMin: 0,
            jitterSecondsMax: 0,
            minGapMinutes: 60,
            productCooldownMinutes: 0,
          },
        ],
      },
      items: Array.from({ length: days }, (_, i) => ({
        clientAssetId: `a${i}`,
        productId: `p${i}`,
        text: `t${i}`,
        targets: [CHANNELS[0]!],
      })),
      existing: [],
      seed: 'dst',
      from,
    }).assignments.map((a) => a.scheduledAt);

  it('Europe/Berlin: 09:00 is 08:00Z before the March change and 07:00Z after; back in October', () => {
    const spring = run('Europe/Berlin', Date.UTC(2026, 2, 26), 6);
    assert.deepEqual(spring, [
      '2026-03-26T08:00:00.000Z',
      '2026-03-27T08:00:00.000Z',
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
      '2026-03-31T07:00:00.000Z',
    ]);
    const autumn = run('Europe/Berlin', Date.UTC(2026, 9, 23), 4);
    assert.deepEqual(autumn, [
      '2026-10-23T07:00:00.000Z',
      '2026-10-24T07:00:00.000Z',
      '2026-10-25T08:00:00.000Z',
      '2026-10-26T08:00:00.000Z',
    ]);
  });

  it('America/New_York: 09:00 is 14:00Z before 8 March 2026 and 13:00Z after; back on 1 November', () => {
    const spring = run('America/New_York', Date.UTC(2026, 2, 6, 12), 4);
    assert.deepEqual(spring, [
      '2026-03-06T14:00:00.000Z',
      '2026-03-07T14:00:00.000Z',
      '2026-03-08T13:00:00.000Z',
      '2026-03-09T13:00:00.000Z',
    ]);
    const autumn = run('America/New_York', Date.UTC(2026, 9, 30, 12), 4);
    assert.deepEqual(autumn, [
      '2026-10-30T13:00:00.000Z',
      '2026-10-31T13:00:00.000Z',
      '2026-11-01T14:00:00.000Z',
      '2026-11-02T14:00:00.000Z',
    ]);
  });

  it('a wall time skipped by spring-forward moves after the change; a repeated one takes its first instant', () => {
    assert.equal(new Date(zonedInstant(2026, 3, 29, 2, 30, 'Europe/Berlin')).toISOString(), '2026-03-29T01:30:00.000Z');
    assert.equal(new Date(zonedInstant(2026, 10, 25, 2, 30, 'Europe/Berlin')).toISOString(), '2026-10-25T00:30:00.000Z');
    assert.equal(new Date(zonedInstant(2026, 3, 8, 2, 30, 'America/New_York')).toISOString(), '2026-03-08T07:30:00.000Z');
  });
});
