/**
 * Approval routes (ROUTES.md, "Contract details for approvals"): submit (publishing.drafts.manage),
 * approve and reject (publishing.results.manage), and the organization's publishing settings.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { publicOrDashboard, requirePolicy, userActorOf, userReaches } from '../../http/dashboard-auth.js';
import { errorResponses, SESSION_AUTH_ERRORS } from '../../http/shared-schemas.js';
import type { PublishApprovalsService, Publisher } from './publish-approvals.service.js';
import { JobParams, PublishJob } from './publishing.schemas.js';
import { ApproveBody, PublishingSettings, PublishingSettingsUpdate, RejectBody, SubmitBody } from './publishing-approvals.schemas.js';

/**
 * Who acts: an API key or OAuth access token (its route scope is publish:write, and it publishes
 * directly), or the signed-in user, who publishes directly when their role reaches
 * publishing.results.manage (admins and owners).
 */
export function publisherOf(request: FastifyRequest): Publisher {
  if (request.principal) return { organizationId: request.principal.organizationId, by: request.principal.subjectId, publishes: true };
  const actor = userActorOf(request);
  return { organizationId: actor.organizationId, by: actor.userId, publishes: userReaches(request, 'publishing.results.manage') };
}

const WHO =
  'Members submit (policy publishing.drafts.manage); admins and owners, and API keys or OAuth tokens with publish:write, approve and reject (publishing.results.manage).';

export function registerApprovalRoutes(root: FastifyInstance, approvals: PublishApprovalsService): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/publish/jobs/:publishJobId/submit',
    {
      config: {
        ...publicOrDashboard('publish:write', 'publishing.drafts.manage'),
        validationCode: 'invalid_public_publish_submit_request',
      },
      schema: {
        operationId: 'submitPublishJob',
        tags: ['Publishing'],
        summary: 'Submit a draft for approval (its targets become pending_approval)',
        description: `Moves the job's draft, failed, needs_reconnect or missed targets, and those approved and still waiting (scheduled, queued), to pending_approval; a change after approval thus goes back for approval. \`scheduleAt\` is the time wanted, \`note\` a note for the approver. Sends publish_job.approval_requested. No target in such a state: 409 publish_job_invalid_transition. ${WHO}`,
        params: JobParams,
        body: { ...SubmitBody, nullable: true } as typeof SubmitBody,
        response: {
          200: PublishJob,
          ...errorResponses('public_publish_job_not_found', 'publish_job_invalid_transition', 'invalid_public_publish_submit_request'),
        },
      },
    },
    async (request) => approvals.submit(publisherOf(request), request.params.publishJobId, request.body ?? {}),
  );

  app.post(
    '/v1/publish/jobs/:publishJobId/approve',
    {
      config: {
        ...publicOrDashboard('publish:write', 'publishing.results.manage'),
        validationCode: 'invalid_public_publish_approve_request',
      },
      schema: {
        operationId: 'approvePublishJob',
        tags: ['Publishing'],
        summary: 'Approve a job waiting for approval: scheduled (at a time) or queued (now)',
        description: `The pending_approval targets are scheduled at \`scheduleAt\`, else at the submitter's time while it is still ahead, else queued now. Sends publish_job.approved. Nothing pending: 409 publish_job_invalid_transition. ${WHO}`,
        params: JobParams,
        body: { ...ApproveBody, nullable: true } as typeof ApproveBody,
        response: {
          200: PublishJob,
          ...errorResponses(
            'public_publish_job_not_found',
            'publish_job_invalid_transition',
            'publish_enqueue_disabled',
            'publish_schedule_write_disabled',
            'invalid_public_publish_approve_request',
          ),
        },
      },
    },
    async (request) => approvals.approve(publisherOf(request), request.params.publishJobId, request.body ?? {}),
  );

  app.post(
    '/v1/publish/jobs/:publishJobId/reject',
    {
      config: {
        ...publicOrDashboard('publish:write', 'publishing.results.manage'),
        validationCode: 'invalid_public_publish_reject_request',
      },
      schema: {
        operationId: 'rejectPublishJob',
        tags: ['Publishing'],
        summary: 'Reject a job waiting for approval, with a reason: back to draft',
        description: `The pending_approval targets become drafts again; \`approval\` holds {state: rejected, reason, decidedBy, decidedAt}. Sends publish_job.rejected. Nothing pending: 409 publish_job_invalid_transition. ${WHO}`,
        params: JobParams,
        body: RejectBody,
        response: {
          200: PublishJob,
          ...errorResponses('public_publish_job_not_found', 'publish_job_invalid_transition', 'invalid_public_publish_reject_request'),
        },
      },
    },
    async (request) => approvals.reject(publisherOf(request), request.params.publishJobId, request.body.reason),
  );

  app.get(
    '/v1/publish/settings',
    {
      config: {
        ...publicOrDashboard('publish:read', 'publishing.jobs.read'),
        validationCode: 'invalid_public_publishing_settings_request',
      },
      schema: {
        operationId: 'getPublishingSettings',
        tags: ['Publishing'],
        summary: "The organization's publishing settings (whether members publish without approval)",
        response: {
          200: PublishingSettings,
        },
      },
    },
    async (request) => approvals.settings(publisherOf(request).organizationId),
  );

  app.patch(
    '/v1/publish/settings',
    {
      config: { ...requirePolicy('publishing.results.manage'), validationCode: 'invalid_public_publishing_settings_request' },
      schema: {
        operationId: 'updatePublishingSettings',
        tags: ['Publishing'],
        summary: 'Let members publish without approval, or require approval again (signed-in admins)',
        description:
          'Policy publishing.results.manage: a signed-in admin or owner of the organization (dashboard session); API keys and service tokens are refused.',
        security: [{ dashboardSessionCookie: [] }, { dashboardSession: [] }],
        body: PublishingSettingsUpdate,
        response: {
          200: PublishingSettings,
          ...errorResponses(...SESSION_AUTH_ERRORS, 'invalid_public_publishing_settings_request'),
        },
      },
    },
    async (request) => {
      const actor = userActorOf(request);
      return approvals.saveSettings(actor.organizationId, actor.userId, request.body);
    },
  );
}
