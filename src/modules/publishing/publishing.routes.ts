/** Publishing routes (ROUTES.md, Publishing and Internal): thin — schema in, one service call, answer out. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { organizationOf, publicOrDashboard, requirePolicy, userActorOf } from '../../http/dashboard-auth.js';
import { IDEMPOTENT_REPLAY } from '../../http/openapi-headers.js';
import { errorResponses } from '../../http/shared-schemas.js';

import type { PlansService } from './plans.service.js';
import type { PublishApprovalsService } from './publish-approvals.service.js';
import type { PublishJobsService } from './publish-jobs.service.js';
import type { PublishingDeps } from './publishing.deps.js';
import {
  AgentPublishRequest,
  CancelBody,
  DryRunAnswer,
  EnqueueBody,
  JobList,
  JobListQuery,
  JobParams,
  PlanPreview,
  PlanPreviewRequest,
  PublishJob,
  PublishJobCreated,
  PublishSlot,
  ReconcileAnswer,
  ScheduleBody,
  SlotQuery,
  UrlReconciliationAnswer,
  UrlReconciliationBody,
} from './publishing.schemas.js';
import { publisherOf, registerApprovalRoutes } from './publishing-approvals.routes.js';
import type { ReconcileService } from './reconcile.service.js';
import type { SlotsService } from './slots.service.js';
import type { UrlReconciliationService } from './url-reconciliation.service.js';

const MEMBERS_SUBMIT =
  'A signed-in member is refused (403 permission_denied) unless the organization lets members publish directly (PATCH /v1/publish/settings); a member submits the job for approval instead (POST /v1/publish/jobs/{publishJobId}/submit). Admins, owners and API keys or OAuth tokens with publish:write publish directly.';

/** The services the routes call (the area's module is one). */
export interface PublishingRouteServices {
  plans: PlansService;
  jobsService: PublishJobsService;
  approvals: PublishApprovalsService;
  reconcile: ReconcileService;
  urls: UrlReconciliationService;
  slots: SlotsService;
}

export function registerPublishingRoutes(root: FastifyInstance, _deps: PublishingDeps, m: PublishingRouteServices): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/publish/plans/preview',
    {
      config: {
        ...publicOrDashboard('publish:read', 'publishing.drafts.manage'),
        validationCode: 'invalid_public_publish_plan_request',
      },
      schema: {
        operationId: 'previewPublishPlan',
        tags: ['Publishing'],
        summary: 'Validate a publish plan against every target platform',
        description:
          'Takes a PublicPublishPlanInput or the `plan` of POST /v1/agent/publish and POST /v1/publish/jobs (AgentPublishPlan: profile expansion, mediaLibraryItemIds, scheduleAt, media optional) and resolves it exactly as the create does, so the preview lists the issues the create would meet. Blocking issues make `valid` false; warnings do not.',
        body: PlanPreviewRequest,
        response: {
          200: PlanPreview,
          ...errorResponses('invalid_public_publish_plan_request'),
        },
      },
    },
    async (request) => m.plans.preview(organizationOf(request), request.body),
  );

  for (const [url, operationId, tags] of [
    ['/v1/agent/publish', 'agentPublish', ['Agent']],
    ['/v1/publish/jobs', 'createPublishJob', ['Publishing']],
  ] as const) {
    app.post(
      url,
      {
        config: {
          ...publicOrDashboard('publish:write', 'publishing.drafts.manage'),
          validationCode: 'invalid_public_publish_job_request',
        },
        schema: {
          operationId,
          [IDEMPOTENT_REPLAY]: true,
          tags: [...tags],
          summary: 'Create a publish job (dry run by default); 200 dry run or replay of the idempotencyKey, 201 created',
          description:
            "Without `enqueue` or `plan.scheduleAt` the job is a draft. A signed-in member's create with either answers 403 permission_denied unless the organization lets members publish directly (PATCH /v1/publish/settings): a member creates the draft and submits it for approval. Admins, owners and API keys or OAuth tokens with publish:write publish directly. `plan.maxLatenessMinutes` sets the lateness limit.",
          body: AgentPublishRequest,
          response: {
            200: { anyOf: [DryRunAnswer, PublishJob] },
            201: PublishJobCreated,
            ...errorResponses(
              'invalid_public_publish_job_request',
              'publish_plan_validation_failed',
              'publish_job_write_disabled',
              'publish_enqueue_disabled',
              'publish_idempotency_key_reused',
              'publish_schedule_write_disabled',
            ),
          },
        },
      },
      async (request, reply) => {
        const answer = await m.plans.create(organizationOf(request), request.body, publisherOf(request));
        if (answer.kind === 'dry_run') return reply.code(200).send(answer.body);
        if (answer.kind === 'replayed') return reply.code(200).header('idempotent-replayed', 'true').send(answer.job);
        return reply.code(201).send({ ...answer.job, warnings: answer.warnings });
      },
    );
  }

  app.get(
    '/v1/publish/jobs',
    {
      config: {
        ...publicOrDashboard('publish:read', 'publishing.jobs.read'),
        validationCode: 'invalid_public_publish_job_query',
      },
      schema: {
        operationId: 'listPublishJobs',
        tags: ['Publishing'],
        summary: 'List publish jobs with their targets (newest first)',
        description:
          'Newest first by creation; with `from` or `to` (a calendar window), by the time the job is for (its schedule, else its creation), then by id. Pages follow `nextCursor`.',
        querystring: JobListQuery,
        response: {
          200: JobList,
          ...errorResponses('invalid_public_publish_job_query'),
        },
      },
    },
    async (request) => m.jobsService.list(organizationOf(request), request.query),
  );

  app.get(
    '/v1/publish/jobs/:publishJobId',
    {
      config: {
        ...publicOrDashboard('publish:read', 'publishing.jobs.read'),
        validationCode: 'invalid_public_publish_job_query',
      },
      schema: {
        operationId: 'getPublishJob',
        tags: ['Publishing'],
        summary: 'A publish job with every target, its state, attempts, last error and post URL',
        params: JobParams,
        response: {
          200: PublishJob,
          ...errorResponses('public_publish_job_not_found', 'invalid_public_publish_job_query'),
        },
      },
    },
    async (request) => m.jobsService.get(organizationOf(request), request.params.publishJobId),
  );

  app.post(
    '/v1/publish/jobs/:publishJobId/enqueue',
    {
      config: {
        ...publicOrDashboard('publish:write', 'publishing.drafts.manage'),
        validationCode: 'invalid_public_publish_enqueue_request',
      },
      schema: {
        operationId: 'enqueuePublishJob',
        tags: ['Publishing'],
        summary: "Queue the job's draft, scheduled, failed, needs_reconnect, needs_attention or missed targets now",
        description: MEMBERS_SUBMIT,
        params: JobParams,
        body: { ...EnqueueBody, nullable: true } as typeof EnqueueBody,
        response: {
          200: PublishJob,
          ...errorResponses(
            'public_publish_job_not_found',
            'publish_enqueue_disabled',
            'publish_job_not_enqueueable',
            'invalid_public_publish_enqueue_request',
          ),
        },
      },
    },
    async (request) => m.jobsService.enqueue(organizationOf(request), request.params.publishJobId, publisherOf(request)),
  );

  app.post(
    '/v1/publish/jobs/:publishJobId/schedule',
    {
      config: {
        ...publicOrDashboard('publish:write', 'publishing.drafts.manage'),
        validationCode: 'invalid_public_publish_schedule_request',
      },
      schema: {
        operationId: 'schedulePublishJob',
        tags: ['Publishing'],
        summary: "(Re)schedule the job's targets that have not started publishing (a missed one too)",
        description: MEMBERS_SUBMIT,
        params: JobParams,
        body: ScheduleBody,
        response: {
          200: PublishJob,
          ...errorResponses(
            'public_publish_job_not_found',
            'publish_schedule_write_disabled',
            'publish_job_not_schedulable',
            'invalid_public_publish_schedule_request',
          ),
        },
      },
    },
    async (request) =>
      m.jobsService.schedule(organizationOf(request), request.params.publishJobId, request.body.scheduleAt, publisherOf(request)),
  );

  app.post(
    '/v1/publish/jobs/:publishJobId/cancel',
    {
      config: {
        ...publicOrDashboard('publish:write', 'publishing.results.manage'),
        validationCode: 'invalid_public_publish_cancel_request',
      },
      schema: {
        operationId: 'cancelPublishJob',
        tags: ['Publishing'],
        summary: "Cancel the job's targets that have not started publishing",
        params: JobParams,
        body: { ...CancelBody, nullable: true } as typeof CancelBody,
        response: {
          200: PublishJob,
          ...errorResponses(
            'public_publish_job_not_found',
            'publish_cancel_write_disabled',
            'publish_job_not_cancellable',
            'invalid_public_publish_cancel_request',
          ),
        },
      },
    },
    async (request) => m.jobsService.cancel(organizationOf(request), request.params.publishJobId, request.body?.reason),
  );

  registerApprovalRoutes(root, m.approvals);

  app.get(
    '/v1/publish/slots',
    {
      config: {
        ...publicOrDashboard('publish:read', 'publishing.jobs.read'),
        validationCode: 'invalid_public_publish_slot_query',
      },
      schema: {
        operationId: 'recommendPublishSlot',
        tags: ['Publishing'],
        summary: 'Next free publish time from the saved batch policy, with candidates and conflicts',
        querystring: SlotQuery,
        response: {
          200: PublishSlot,
          ...errorResponses(
            'invalid_public_publish_slot_query',
            'brand_not_found',
            'channel_account_not_found',
            'publishing_profile_not_found',
          ),
        },
      },
    },
    async (request) => m.slots.recommend(organizationOf(request), request.query),
  );

  app.post(
    '/v1/publish/url-reconciliation',
    {
      config: {
        ...publicOrDashboard('publish:write', 'publishing.urls.reconcile'),
        validationCode: 'invalid_public_publish_url_reconciliation_request',
      },
      schema: {
        operationId: 'reconcilePublishUrls',
        tags: ['Publishing'],
        summary: 'Fetch permalinks of published targets that lack one (dry run by default)',
        body: UrlReconciliationBody,
        response: {
          200: UrlReconciliationAnswer,
          ...errorResponses(
            'invalid_public_publish_url_reconciliation_request',
            'publish_url_reconciliation_disabled',
            'public_publish_job_not_found',
          ),
        },
      },
    },
    async (request) => m.urls.run(organizationOf(request), request.body),
  );

  app.post(
    '/v1/internal/publish-queue/reconcile',
    {
      config: requirePolicy('publishing.queue.reconcile'),
      schema: {
        operationId: 'reconcilePublishQueue',
        tags: ['Publishing'],
        summary: "Re-queue the organization's due targets without a worker job and settle targets stuck publishing",
        description:
          "Policy publishing.queue.reconcile: a signed-in admin (or owner); the sweep covers the admin's organization only. Service tokens are refused (403 permission_denied); the worker's cron runs the same sweep over every organization each minute.",
        security: [{ dashboardSessionCookie: [] }, { dashboardSession: [] }],
        response: {
          200: ReconcileAnswer,
          ...errorResponses('dashboard_session_required', 'permission_denied', 'internal_server_error'),
        },
      },
    },
    async (request) => m.reconcile.run(userActorOf(request).organizationId),
  );
}
