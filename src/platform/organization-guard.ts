import { AppError, type ErrorCode } from './errors.js';

/**
 * The body's organizationId, when given, must be the principal's. Anything else answers 404, exactly like
 * a made-up id (another organization's data is never reachable): `organization_not_found`, or the area's
 * own not-found code where its specification says so (social comments answer `social_comment_not_found`).
 */
export function assertOwnOrganization(
  principalOrganizationId: string,
  bodyOrganizationId: string | undefined,
  notFound: ErrorCode = 'organization_not_found',
): void {
  if (bodyOrganizationId !== undefined && bodyOrganizationId !== principalOrganizationId) {
    throw new AppError(notFound, {
      message: `Organization ${bodyOrganizationId} is not the principal organization.`,
      fields: [{ path: ['organizationId'], source: 'body' }],
    });
  }
}
