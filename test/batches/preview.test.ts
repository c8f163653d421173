/** POST /v1/publish/batches/preview: schedule, policy source, product link comment, validation and isolation. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type PublishingHarness, startPublishingHarness } from '../publishing/publishing-harness.js';
import { type BatchOrg, createBatchOrg, dailySlots, items } from './batch-support.js';

const FROM = '2030-03-25T00:00:00.000Z';

describe('publish batch preview', () => {
  let h: PublishingHarness;
  let org: BatchOrg;
  let other: BatchOrg;

  before(async () => {
    h = await startPublishingHarness();
    org = await createBatchOrg(h, 'Preview');
    other = await createBatchOrg(h, 'Other');
  });
  after(() => h.close());

  it('assigns every target to a slot occurrence in its own time zone, across the DST change, deterministically', async () => {
    const body = {
      brandId: org.brandId,
      from: FROM,
      policy: dailySlots({ jitterSecondsMin: 0, jitterSecondsMax: 0 }),
      items: items(org, 6),
    };
    const res = await api(h, org, 'POST', '/v1/publish/batches/preview', body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const p = res.body;
    assert.equal(p.mode, 'preview');
    assert.equal(p.assignmentCount, 12);
    assert.equal(p.scheduledItemCount, 6);
    assert.equal(p.unscheduledItemCount, 0);
    assert.equal(p.from, FROM);
    assert.deepEqual(p.policy.source, { kind: 'request' });
    for (const a of p.assignments) {
      const t = new Date(a.scheduledAt);
      if (a.slotId === 'morning') {
        // 2030-03-31 is Berlin's spring change: 08:00Z before, 07:00Z from that day
        assert.equal(t.getUTCHours(), t < new Date('2030-03-31T00:00:00Z') ? 8 : 7, a.scheduledAt);
      } else assert.equal(`${t.getUTCHours()}:${t.getUTCMinutes()}`, '22:30', a.scheduledAt);
    }
    const again = await api(h, org, 'POST', '/v1/publish/batches/preview', body);
    assert.deepEqual(again.body.assignments, p.assignments);
    assert.equal(again.body.batchPreviewId, p.batchPreviewId);
  });

  it('plans around existingAssignments the client sends', async () => {
    const policy = { horizonDays: 2, slots: [{ id: 'nine', localTime: '09:00', jitterSecondsMin: 0, jitterSecondsMax: 0 }] };
    const its = [{ ...items(org, 1)[0]!, targets: [{ platform: 'facebook_page', channelAccountId: org.fb }] }];
    const free = await api(h, org, 'POST', '/v1/publish/batches/preview', { brandId: org.brandId, from: FROM, policy, items: its });
    assert.equal(free.body.assignments[0].scheduledAt, '2030-03-25T09:00:00.000Z');
    const busy = await api(h, org, 'POST', '/v1/publish/batches/preview', {
      brandId: org.brandId,
      from: FROM,
      policy,
      items: its,
      existingAssignments: [{ platform: 'facebook_page', channelAccountId: org.fb, scheduledAt: '2030-03-25T09:30:00Z' }],
    });
    assert.equal(busy.body.assignments[0].scheduledAt, '2030-03-26T09:00:00.000Z', 'the next day: 09:00 is within minGap of 09:30');
  });

  it('uses the default profile batch policy when the request has none; 400 when neither exists', async () => {
    const none = await api(h, org, 'POST', '/v1/publish/batches/preview', { brandId: org.brandId, items: items(org, 1) });
    assert.equal(none.status, 400);
    assert.equal(none.body.error, 'invalid_public_publish_batch_request');
    assert.deepEqual(none.body.fields, [{ path: ['policy'], source: 'body' }]);
    assert.match(none.body.message, /batchPolicy/);

    const bad = await h.ctx.app.inject({
      method: 'PUT',
      url: '/v1/publishing-profiles',
      headers: org.auth,
      payload: {
        organizationId: org.organizationId,
        brandId: org.brandId,
        name: 'Default',
        isDefault: true,
        scheduleSettings: { batchPolicy: { slots: [{ id: 'x', localTime: '25:00' }] } },
      },
    });
    assert.equal(bad.statusCode, 400, 'saving a profile validates the batch policy');
    const saved = await h.ctx.app.inject({
      method: 'PUT',
      url: '/v1/publishing-profiles',
      headers: org.auth,
      payload: {
        organizationId: org.organizationId,
        brandId: org.brandId,
        name: 'Default',
        isDefault: true,
        scheduleSettings: { batchPolicy: { id: 'saved', horizonDays: 3, slots: [{ id: 'noon', localTime: '12:00' }] } },
      },
    });
    assert.ok(saved.statusCode === 200 || saved.statusCode === 201, saved.body);
    const res = await api(h, org, 'POST', '/v1/publish/batches/preview', { brandId: org.brandId, from: FROM, items: items(org, 2) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.policy.source.kind, 'profile');
    assert.equal(res.body.policy.id, 'saved');
    assert.ok(res.body.assignments.every((a: { slotId: string }) => a.slotId === 'noon'));
  });

  it('renders the product link comment with UTM tracking; a target firstComment wins; unsupported platforms warn', async () => {
    const its = items(org, 1);
    its[0]!.targets[1] = {
      platform: 'threads',
      channelAccountId: org.threads,
      firstComment: { content: 'Own comment', delayMs: 0 },
    } as never;
    const res = await api(h, org, 'POST', '/v1/publish/batches/preview', {
      brandId: org.brandId,
      from: FROM,
      policy: dailySlots(),
      productLinkComment: { enabled: true, template: 'Get {{title}} on {{platform}}: {{productUrl}}', utmCampaign: 'spring' },
      items: its,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const fb = res.body.assignments.find((a: { platform: string }) => a.platform === 'facebook_page');
    assert.equal(
      fb.firstComment.content,
      'Get Product 0 on facebook_page: https://shop.example/p/0?ref=home&utm_source=facebook_page&utm_medium=organic_social&utm_campaign=spring',
    );
    assert.equal(fb.firstComment.delayMs, 300000);
    const th = res.body.assignments.find((a: { platform: string }) => a.platform === 'threads');
    assert.deepEqual(th.firstComment, { content: 'Own comment', delayMs: 0 });
  });

  it('turns blocking plan issues into warnings and leaves that target unscheduled', async () => {
    const res = await api(h, org, 'POST', '/v1/publish/batches/preview', {
      brandId: org.brandId,
      from: FROM,
      policy: dailySlots(),
      items: [
        {
          clientAssetId: 'ig-no-media',
          productId: org.products[0]!.productId,
          text: 'Instagram needs media',
          targets: [
            { platform: 'instagram_business', channelAccountId: org.ig },
            { platform: 'facebook_page', channelAccountId: org.fb },
          ],
        },
      ],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.assignmentCount, 1);
    const w = res.body.warnings.find((x: { rule: string }) => x.rule === 'plan_validation');
    assert.ok(w, JSON.stringify(res.body.warnings));
    assert.equal(w.targetIndex, 0);
    assert.equal(w.unscheduled, true);
    assert.match(w.message, /media_required/);
  });

  it('answers 400 with fields[] for every bound of the spec', async () => {
    const base = { brandId: org.brandId, from: FROM, items: items(org, 1) };
    const slot = (o: Record<string, unknown>) => ({ ...base, policy: { slots: [{ id: 's', localTime: '09:00', ...o }] } });
    const cases: Array<[unknown, string[]]> = [
      [slot({ localTime: '24:00' }), ['policy', 'slots', '0', 'localTime']],
      [slot({ localTime: '09:60' }), ['policy', 'slots', '0', 'localTime']],
      [slot({ localTime: '9:00' }), ['policy', 'slots', '0', 'localTime']],
      [slot({ jitterSecondsMin: -3601 }), ['policy', 'slots', '0', 'jitterSecondsMin']],
      [slot({ jitterSecondsMax: 3601 }), ['policy', 'slots', '0', 'jitterSecondsMax']],
      [slot({ jitterSecondsMin: 100, jitterSecondsMax: 0 }), ['policy', 'slots', '0', 'jitterSecondsMin']],
      [slot({ minGapMinutes: 1441 }), ['policy', 'slots', '0', 'minGapMinutes']],
      [slot({ minGapMinutes: -1 }), ['policy', 'slots', '0', 'minGapMinutes']],
      [slot({ productCooldownMinutes: 43201 }), ['policy', 'slots', '0', 'productCooldownMinutes']],
      [slot({ weekdays: [0] }), ['policy', 'slots', '0', 'weekdays', '0']],
      [slot({ weekdays: [8] }), ['policy', 'slots', '0', 'weekdays', '0']],
      [slot({ timezone: 'Mars/Olympus' }), ['policy', 'slots', '0', 'timezone']],
      [slot({ extra: true }), ['policy', 'slots', '0', 'extra']],
      [{ ...base, policy: { horizonDays: 61, slots: [{ id: 's', localTime: '09:00' }] } }, ['policy', 'horizonDays']],
      [{ ...base, policy: { horizonDays: 0, slots: [{ id: 's', localTime: '09:00' }] } }, ['policy', 'horizonDays']],
      [{ ...base, policy: { slots: [] } }, ['policy', 'slots']],
      [{ ...base, policy: dailySlots(), items: [] }, ['items']],
      [{ ...base, policy: dailySlots(), items: [{ ...base.items[0], targets: [] }] }, ['items', '0', 'targets']],
      [{ ...base, policy: dailySlots(), productLinkComment: { enabled: true, delayMs: 86_400_001 } }, ['productLinkComment', 'delayMs']],
      [{ ...base, policy: dailySlots(), productLinkComment: { enabled: true, delayMs: -1 } }, ['productLinkComment', 'delayMs']],
      [
        {
          ...base,
          policy: dailySlots(),
          items: [
            {
              ...base.items[0],
              targets: [{ platform: 'threads', channelAccountId: org.threads, firstComment: { content: 'x', delayMs: 86_400_001 } }],
            },
          ],
        },
        ['items', '0', 'targets', '0', 'firstComment', 'delayMs'],
      ],
      [{ ...base, policy: dailySlots(), unknown: 1 }, ['unknown']],
      [{ ...base, policy: dailySlots(), items: [base.items[0], base.items[0]] }, ['items', '1', 'clientAssetId']],
    ];
    for (const [payload, path] of cases) {
      const res = await api(h, org, 'POST', '/v1/publish/batches/preview', payload);
      assert.equal(res.status, 400, `${JSON.stringify(path)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error, 'invalid_public_publish_batch_request');
      assert.deepEqual(res.body.fields?.[0]?.path, path, JSON.stringify(res.body));
      assert.equal(res.body.fields[0].source, 'body');
    }
  });

  it("refuses another organization's brand, product and channel with 400, never 500", async () => {
    const base = { brandId: org.brandId, from: FROM, policy: dailySlots() };
    const theirs = items(other, 1)[0]!;
    const mine = items(org, 1)[0]!;
    const cases: Array<[unknown, string[]]> = [
      [{ ...base, brandId: other.brandId, items: [mine] }, ['brandId']],
      [{ ...base, items: [{ ...mine, productId: other.products[0]!.productId }] }, ['items', '0', 'productId']],
      [{ ...base, items: [{ ...mine, targets: theirs.targets }] }, ['items', '0', 'targets', '0', 'channelAccountId']],
    ];
    for (const [payload, path] of cases) {
      const res = await api(h, org, 'POST', '/v1/publish/batches/preview', payload);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.deepEqual(res.body.fields[0].path, path);
    }
  });
});
