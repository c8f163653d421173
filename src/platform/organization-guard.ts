import { AppError } from './errors.js';

/** The body's organizationId must be the principal's: anything else is reported as not found. */
export function assertOwnOrganization(principalOrganizationId: string, bodyOrganizationId: string | undefined): void {
  if (bodyOrganizationId !== undefined && bodyOrganizationId !== principalOrganizationId) {
    throw new AppError('organization_not_found', {
      message: `Organization ${bodyOrganizationId} is not the principal organization.`,
      fields: [{ path: ['organizationId'], source: 'body' }],
    });
  }
}
