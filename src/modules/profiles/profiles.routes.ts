/** Publishing profile routes (ROUTES.md, Channels and publishing profiles). */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { organizationOf, publicOrDashboard } from '../../http/dashboard-auth.js';
import { errorResponses } from '../../http/shared-schemas.js';
import {
  PublishingProfile,
  PublishingProfileList,
  PublishingProfileListQuery,
  PublishingProfileParams,
  PublishingProfileSaveRequest,
} from './profiles.schemas.js';
import type { ProfilesService } from './profiles.service.js';

const tags = ['Channels'];

export function registerProfileRoutes(root: FastifyInstance, profiles: ProfilesService): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v1/publishing-profiles',
    {
      config: {
        ...publicOrDashboard('publish:read', 'publishing.jobs.read'),
        validationCode: 'invalid_public_publishing_profile_query',
      },
      schema: {
        operationId: 'listPublishingProfiles',
        tags,
        summary: 'List publishing profiles',
        querystring: PublishingProfileListQuery,
        response: {
          200: PublishingProfileList,
          ...errorResponses('invalid_public_publishing_profile_query'),
        },
      },
    },
    async (request) => profiles.list(organizationOf(request), request.query),
  );

  app.put(
    '/v1/publishing-profiles',
    {
      config: {
        auth: { scope: 'publish:write' },
        validationCode: 'invalid_public_publishing_profile_request',
      },
      schema: {
        operationId: 'savePublishingProfile',
        tags,
        summary: 'Create or update a publishing profile',
        description:
          "Updates the profile named by profileId, else the brand's profile with the same slug (slug defaults to the slugified name): 200; otherwise creates one: 201. " +
          "channels replaces the profile's channel list; each must be a channel account of the same organization and brand with the given platform. isDefault true moves the brand's default here. " +
          'scheduleSettings.batchPolicy is validated as a batch policy and saved with its defaults.',
        body: PublishingProfileSaveRequest,
        response: {
          200: PublishingProfile,
          201: PublishingProfile,
          ...errorResponses(
            'invalid_public_publishing_profile_request',
            'organization_not_found',
            'brand_not_found',
            'publishing_profile_not_found',
          ),
        },
      },
    },
    async (request, reply) => {
      const { created, profile } = await profiles.save(organizationOf(request), request.body);
      return reply.code(created ? 201 : 200).send(profile);
    },
  );

  app.delete(
    '/v1/publishing-profiles/:profileId',
    {
      config: {
        auth: { scope: 'publish:write' },
        validationCode: 'invalid_public_publishing_profile_request',
      },
      schema: {
        operationId: 'deletePublishingProfile',
        tags,
        summary: 'Delete a publishing profile',
        params: PublishingProfileParams,
        response: {
          204: { type: 'null', description: 'Deleted.' },
          ...errorResponses('publishing_profile_not_found'),
        },
      },
    },
    async (request, reply) => {
      await profiles.delete(organizationOf(request), request.params.profileId);
      return reply.code(204).send();
    },
  );
}
