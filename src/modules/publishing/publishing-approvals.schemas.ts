/** TypeBox shapes of the approval routes and the organization's publishing settings (ROUTES.md, approvals). */
import { type Static, Type } from '@sinclair/typebox';
import { Nullable } from '../../http/shared-schemas.js';
import { DateTime } from './publishing.schemas.js';

export const SubmitBody = Type.Object(
  {
    scheduleAt: Type.Optional(DateTime('The time wanted; the approver may keep or change it. Must be in the future.')),
    note: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'A note for the approver.' })),
  },
  { $id: 'PublishJobSubmitRequest', additionalProperties: false },
);
export const ApproveBody = Type.Object(
  {
    scheduleAt: Type.Optional(DateTime("Publish at this time (must be in the future); omitted: the submitter's time, else queued now.")),
  },
  { $id: 'PublishJobApproveRequest', additionalProperties: false },
);
export const RejectBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: 1000, description: 'Why, shown to the submitter.' }) },
  { $id: 'PublishJobRejectRequest', additionalProperties: false },
);
export const PublishingSettings = Type.Object(
  {
    organizationId: Type.String(),
    membersPublishDirectly: Type.Boolean({
      description:
        'false (default): a member creates drafts and submits them for approval; creating with enqueue or scheduleAt, enqueue and schedule answer 403 permission_denied to a member. true: members publish directly, as admins do.',
    }),
    updatedBy: Nullable(Type.String()),
    updatedAt: Nullable(DateTime()),
  },
  { $id: 'PublishingSettings', additionalProperties: false },
);
export const PublishingSettingsUpdate = Type.Object(
  { membersPublishDirectly: Type.Boolean() },
  { $id: 'PublishingSettingsUpdateRequest', additionalProperties: false },
);

export type PublishingSettingsT = Static<typeof PublishingSettings>;
