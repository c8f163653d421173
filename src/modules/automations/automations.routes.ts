/** Automation routes (ROUTES.md, "Webhooks and automations" and Internal). */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { actorOf, organizationOf, publicOrDashboard, requirePolicy } from '../../http/dashboard-auth.js';
import { errorResponses } from '../../http/shared-schemas.js';

import type { AppDeps } from '../app-deps.js';
import {
  AutomationRun,
  AutomationRunCreateRequest,
  AutomationRunList,
  AutomationRunQuery,
  AutomationRunRecordRequest,
  AutomationSource,
  AutomationSourceCreateRequest,
  AutomationSourceList,
  AutomationSourceQuery,
  AutomationSourceUpdateRequest,
  RunParams,
  SchedulerEnqueueAnswer,
  SourceParams,
} from './automations.schemas.js';
import type { AutomationsService } from './automations.service.js';
import type { AutomationRunner } from './runner.js';
import { enqueueDueRuns } from './scheduler.js';

const tags = ['Automations'];

export function registerAutomationRoutes(
  root: FastifyInstance,
  deps: Pick<AppDeps, 'database' | 'clock'>,
  service: AutomationsService,
  runner: AutomationRunner,
): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(AutomationSource);
  app.addSchema(AutomationRun);

  app.get(
    '/v1/automation-sources',
    {
      config: {
        ...publicOrDashboard('automations:read', 'automations.sources.manage'),
        validationCode: 'invalid_public_automation_source_query',
      },
      schema: {
        operationId: 'listAutomationSources',
        tags,
        summary: 'List automation sources (not deleted), oldest first',
        querystring: AutomationSourceQuery,
        response: {
          200: AutomationSourceList,
          ...errorResponses('invalid_public_automation_source_query'),
        },
      },
    },
    async (request) => service.listSources(organizationOf(request), request.query),
  );

  app.post(
    '/v1/automation-sources',
    {
      config: {
        ...publicOrDashboard('automations:write', 'automations.sources.manage'),
        validationCode: 'invalid_public_automation_source_create_request',
      },
      schema: {
        operationId: 'createAutomationSource',
        tags,
        summary: 'Create an automation source; config is validated for its kind',
        description:
          "The config's references are checked when saved: channels of targets, profileId and productIds of another organization (or, for products, another brand) are 404 with the referenced kind's code; " +
          'an rss_feed feedUrl with credentials, a literal internal address in any spelling or an internal name (localhost, *.internal, *.local) is 400. The feed is checked again at every fetch.',
        body: AutomationSourceCreateRequest,
        response: {
          201: AutomationSource,
          ...errorResponses(
            'invalid_public_automation_source_create_request',
            'automation_write_disabled',
            'brand_not_found',
            'channel_account_not_found',
            'publishing_profile_not_found',
            'product_not_found',
            'automation_source_create_failed',
          ),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await service.createSource(organizationOf(request), request.body)),
  );

  app.patch(
    '/v1/automation-sources/:automationSourceId',
    {
      config: {
        ...publicOrDashboard('automations:write', 'automations.sources.manage'),
        validationCode: 'invalid_public_automation_source_update_request',
      },
      schema: {
        operationId: 'updateAutomationSource',
        tags,
        summary: 'Update a source: name, enabled, schedule, or config (merged; a null value removes an optional key)',
        params: SourceParams,
        body: AutomationSourceUpdateRequest,
        response: {
          200: AutomationSource,
          ...errorResponses(
            'invalid_public_automation_source_update_request',
            'automation_write_disabled',
            'automation_source_not_found',
            'channel_account_not_found',
            'publishing_profile_not_found',
            'product_not_found',
          ),
        },
      },
    },
    async (request) => service.updateSource(organizationOf(request), request.params.automationSourceId, request.body),
  );

  app.delete(
    '/v1/automation-sources/:automationSourceId',
    {
      config: {
        ...publicOrDashboard('automations:write', 'automations.sources.manage'),
        validationCode: 'invalid_public_automation_source_delete_request',
      },
      schema: {
        operationId: 'deleteAutomationSource',
        tags,
        summary: 'Delete a source (soft delete: its runs stay readable; it no longer runs)',
        params: SourceParams,
        response: {
          204: { type: 'null', description: 'Deleted.' },
          ...errorResponses('invalid_public_automation_source_delete_request', 'automation_write_disabled', 'automation_source_not_found'),
        },
      },
    },
    async (request, reply) => {
      await service.deleteSource(organizationOf(request), request.params.automationSourceId);
      return reply.code(204).send();
    },
  );

  app.get(
    '/v1/automation-runs',
    {
      config: {
        ...publicOrDashboard('automations:read', 'automations.sources.manage'),
        validationCode: 'invalid_public_automation_run_query',
      },
      schema: {
        operationId: 'listAutomationRuns',
        tags,
        summary: 'List automation runs, newest first',
        description:
          'The run log goes back a limited time: a finished run (succeeded, failed, cancelled) is removed once older than the retention the operator sets (90 days by default); queued and running runs stay.',
        querystring: AutomationRunQuery,
        response: {
          200: AutomationRunList,
          ...errorResponses('invalid_public_automation_run_query'),
        },
      },
    },
    async (request) => service.listRuns(organizationOf(request), request.query),
  );

  app.post(
    '/v1/automation-runs',
    {
      config: {
        ...publicOrDashboard('automations:write', 'automations.sources.manage'),
        validationCode: 'invalid_public_automation_run_create_request',
      },
      schema: {
        operationId: 'createAutomationRun',
        tags,
        summary: 'Queue a run of an enabled source (the worker executes built-in kinds), or answer a dry run',
        description:
          'dryRun: false queues a stored run (201, status queued). A dry run (the default) stores nothing: a built-in kind is computed at once and answered as it ended (succeeded or failed, with what it would create in output); an external source is answered queued. Its automationRunId is fresh and names no stored run (reading or recording it answers 404).',
        body: AutomationRunCreateRequest,
        response: {
          201: AutomationRun,
          ...errorResponses('invalid_public_automation_run_create_request', 'automation_write_disabled', 'automation_source_not_runnable'),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await service.createRun(organizationOf(request), request.body, (source, run) => runner.preview(source, run))),
  );

  app.post(
    '/v1/automation-runs/:automationRunId/status',
    {
      config: {
        ...publicOrDashboard('automations:write', 'automations.sources.manage'),
        validationCode: 'invalid_public_automation_run_record_request',
      },
      schema: {
        operationId: 'recordAutomationRunStatus',
        tags,
        summary: 'Move a run: queued -> running | cancelled; running -> succeeded | failed | cancelled',
        params: RunParams,
        body: AutomationRunRecordRequest,
        response: {
          200: AutomationRun,
          ...errorResponses(
            'invalid_public_automation_run_record_request',
            'automation_write_disabled',
            'automation_run_not_found',
            'automation_run_invalid_transition',
          ),
        },
      },
    },
    async (request) => service.recordStatus(organizationOf(request), request.params.automationRunId, request.body),
  );

  app.post(
    '/v1/internal/automations/scheduler/enqueue',
    {
      config: requirePolicy('automations.scheduler.enqueue'),
      schema: {
        operationId: 'enqueueScheduledAutomationRuns',
        tags,
        summary: 'Internal: queue one run per due schedule tick of every enabled source',
        description:
          'Policy automations.scheduler.enqueue: the internal or service principal token (every organization), or a signed-in admin (their organization only).',
        security: [{ internalServiceToken: [] }, { servicePrincipalToken: [] }, { dashboardSessionCookie: [] }, { dashboardSession: [] }],
        response: {
          200: SchedulerEnqueueAnswer,
          ...errorResponses('dashboard_session_required', 'permission_denied', 'internal_server_error'),
        },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const ids = await enqueueDueRuns(deps, service, actor.kind === 'user' ? actor.organizationId : undefined);
      return { enqueued: ids.length, automationRunIds: ids };
    },
  );
}
