/** Developer credentials (dashboard): API keys, OAuth apps, OAuth grants. */

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requirePolicy, userActorOf } from '../../http/dashboard-auth.js';
import { errorResponses } from '../../http/shared-schemas.js';
import type { ErrorCode } from '../../platform/errors.js';
import {
  ApiKey,
  ApiKeyCreated,
  ApiKeyCreateRequest,
  ApiKeyList,
  ApiKeyParams,
  ListQuery,
  OAuthApp,
  OAuthAppCreateRequest,
  OAuthAppList,
  OAuthAppParams,
  OAuthAppUpdateRequest,
  OAuthAppWithSecret,
  OAuthGrant,
  OAuthGrantList,
  OAuthGrantParams,
} from './credentials.schemas.js';
import type { CredentialsService } from './credentials.service.js';

const DASHBOARD_ERRORS: ErrorCode[] = ['invalid_request', 'dashboard_session_required', 'permission_denied', 'internal_server_error'];
const security: Array<Record<string, string[]>> = [{ dashboardSessionCookie: [] }, { dashboardSession: [] }];
const tags = ['Developer credentials'];

export function registerCredentialRoutes(root: FastifyInstance, service: CredentialsService, onRevoke: () => void): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(ApiKey);
  app.addSchema(OAuthApp);
  app.addSchema(OAuthGrant);

  const keys = requirePolicy('developer.api_keys.manage');
  app.get(
    '/v1/api-keys',
    {
      config: { ...keys, validationCode: 'invalid_credential_query' },
      schema: {
        operationId: 'listApiKeys',
        tags,
        summary: "List the organization's API keys (never the secrets)",
        security,
        querystring: ListQuery,
        response: { 200: ApiKeyList, ...errorResponses(...DASHBOARD_ERRORS) },
      },
    },
    async (request) => service.listApiKeys(userActorOf(request).organizationId, request.query),
  );
  app.post(
    '/v1/api-keys',
    {
      config: { ...keys, validationCode: 'invalid_credential_request' },
      schema: {
        operationId: 'createApiKey',
        tags,
        summary: 'Create an API key; the secret is in this answer only',
        description: 'scopes default to every public scope.',
        security,
        body: ApiKeyCreateRequest,
        response: { 201: ApiKeyCreated, ...errorResponses(...DASHBOARD_ERRORS) },
      },
    },
    async (request, reply) => {
      const actor = userActorOf(request);
      reply.header('cache-control', 'no-store');
      return reply.code(201).send(await service.createApiKey(actor.organizationId, actor.userId, request.body));
    },
  );
  app.delete(
    '/v1/api-keys/:apiKeyId',
    {
      config: { ...keys, validationCode: 'invalid_credential_request' },
      schema: {
        operationId: 'revokeApiKey',
        tags,
        summary: 'Revoke an API key',
        description: 'Takes effect at once in this process and within 5 seconds in every other one.',
        security,
        params: ApiKeyParams,
        response: {
          204: { type: 'null', description: 'Revoked (also when it was revoked already).' },
          ...errorResponses('api_key_not_found', ...DASHBOARD_ERRORS),
        },
      },
    },
    async (request, reply) => {
      await service.revokeApiKey(userActorOf(request).organizationId, request.params.apiKeyId);
      onRevoke();
      return reply.code(204).send();
    },
  );

  const apps = requirePolicy('developer.oauth_apps.manage');
  app.get(
    '/v1/oauth/apps',
    {
      config: { ...apps, validationCode: 'invalid_credential_query' },
      schema: {
        operationId: 'listOAuthApps',
        tags,
        summary: 'List OAuth apps',
        security,
        querystring: ListQuery,
        response: { 200: OAuthAppList, ...errorResponses(...DASHBOARD_ERRORS) },
      },
    },
    async (request) => service.listApps(userActorOf(request).organizationId, request.query),
  );
  app.post(
    '/v1/oauth/apps',
    {
      config: { ...apps, validationCode: 'invalid_credential_request' },
      schema: {
        operationId: 'createOAuthApp',
        tags,
        summary: 'Register an OAuth app; the generated client secret is in this answer only',
        description:
          'The service generates the client secret: it is answered here once and stored only as a SHA-256 hash, compared in constant time at the token endpoint. ' +
          'A tenant cannot name a server setting or environment variable as the secret (clientSecretRef is refused with 400); secret references are provisioned by the operator with the CLI (`service-api oauth-apps create --client-secret-ref env:NAME`).',
        security,
        body: OAuthAppCreateRequest,
        response: { 201: OAuthAppWithSecret, ...errorResponses('oauth_authorization_write_failed', ...DASHBOARD_ERRORS) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return reply.code(201).send(await service.createApp(userActorOf(request).organizationId, request.body));
    },
  );
  app.patch(
    '/v1/oauth/apps/:oauthAppId',
    {
      config: { ...apps, validationCode: 'invalid_credential_request' },
      schema: {
        operationId: 'updateOAuthApp',
        tags,
        summary: 'Update an OAuth app (name, redirect URIs, scopes) or rotate its secret',
        security,
        params: OAuthAppParams,
        body: OAuthAppUpdateRequest,
        response: { 200: OAuthAppWithSecret, ...errorResponses('oauth_app_not_found', ...DASHBOARD_ERRORS) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return service.updateApp(userActorOf(request).organizationId, request.params.oauthAppId, request.body);
    },
  );
  app.delete(
    '/v1/oauth/apps/:oauthAppId',
    {
      config: { ...apps, validationCode: 'invalid_credential_request' },
      schema: {
        operationId: 'deleteOAuthApp',
        tags,
        summary: 'Delete an OAuth app and revoke every grant and token issued to it',
        security,
        params: OAuthAppParams,
        response: { 204: { type: 'null', description: 'Deleted.' }, ...errorResponses('oauth_app_not_found', ...DASHBOARD_ERRORS) },
      },
    },
    async (request, reply) => {
      await service.deleteApp(userActorOf(request).organizationId, request.params.oauthAppId);
      return reply.code(204).send();
    },
  );

  const grants = requirePolicy('developer.oauth_grants.manage');
  app.get(
    '/v1/oauth/grants',
    {
      config: { ...grants, validationCode: 'invalid_credential_query' },
      schema: {
        operationId: 'listOAuthGrants',
        tags,
        summary: 'List OAuth grants (authorizations)',
        security,
        querystring: ListQuery,
        response: { 200: OAuthGrantList, ...errorResponses(...DASHBOARD_ERRORS) },
      },
    },
    async (request) => service.listGrants(userActorOf(request).organizationId, request.query),
  );
  app.delete(
    '/v1/oauth/grants/:authorizationId',
    {
      config: { ...grants, validationCode: 'invalid_credential_request' },
      schema: {
        operationId: 'revokeOAuthGrant',
        tags,
        summary: 'Revoke a grant and every access and refresh token issued under it',
        security,
        params: OAuthGrantParams,
        response: { 204: { type: 'null', description: 'Revoked.' }, ...errorResponses('oauth_grant_not_found', ...DASHBOARD_ERRORS) },
      },
    },
    async (request, reply) => {
      await service.revokeGrant(userActorOf(request).organizationId, request.params.authorizationId);
      return reply.code(204).send();
    },
  );
}
