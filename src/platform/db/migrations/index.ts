/**
 * Every migration, in order. Names sort lexically; add new ones at the end with the next number.
 * Migrations run at start (`service-api start|api|worker`) and with `service-api migrate`.
 */
import type { Migration } from 'kysely';
import * as m0001 from './0001-foundation.js';
import * as m0002 from './0002-tools.js';
import * as m0003 from './0003-media.js';
import * as m0004 from './0004-channels.js';
import * as m0005 from './0005-publishing.js';
import * as m0006 from './0006-events.js';
// auth: import its migration here
import * as m0007 from './0007-auth.js';

// batches: import its migration here
import * as m0008 from './0008-batches.js';

// webhooks: import its migration here
import * as m0009 from './0009-webhooks.js';

// engagement: import its migration here
import * as m0010 from './0010-comments.js';
// automations: import its migration here
import * as m0011 from './0011-automations.js';
import * as m0012 from './0012-analytics.js'; // analytics
import * as m0013 from './0013-provider-webhooks.js'; // provider webhooks

// hardening: import its migration here
import * as m0014 from './0014-oauth-secret-refs.js'; // OAuth client secret references are the operator's
import * as m0015 from './0015-publish-approvals.js'; // approvals and lateness of publish jobs
import * as m0016 from './0016-previews-sign-in.js'; // stored batch previews, per-job batch events, OpenID Connect sign-in
import * as m0017 from './0017-mcp-oauth.js'; // the remote MCP endpoint's OAuth
import * as m0018 from './0018-scale-indexes.js'; // indexes for a year of history (bench:scale)
import * as m0020 from './0020-retention.js'; // the maintenance prune's indexes
import * as m0023 from './0023-webhook-delivery-claims.js'; // webhook deliveries claimed from their table
import * as m0024 from './0024-identity-retention.js'; // expiry indexes of OAuth codes and tokens
import * as m0025 from './0025-webhook-pending-index.js'; // an index no statement reads since 0023
import * as m0026 from './0026-webhook-delivery-indexes.js'; // fewer index writes per webhook delivery
import * as m0027 from './0027-publish-target-indexes.js'; // a publish target index the channel time index covers
import * as m0028 from './0028-packed-preview-schedules.js'; // stored preview schedules compressed
import * as m0029 from './0029-webhook-delivery-leases.js'; // a webhook delivery's lease in a column of its own
import * as m0030 from './0030-publish-target-notes.js'; // a published outcome noted on its target during a burst

export const migrations: Record<string, Migration> = {
  '0001-foundation': m0001,
  // tools: register the tool API migration here
  '0002-tools': m0002,
  // media: register the media migration here
  '0003-media': m0003,
  // channels: register the channels/profiles migration here
  '0004-channels': m0004,
  // publishing: register the publishing migration here
  '0005-publishing': m0005,
  // the event outbox (webhooks fan it out)
  '0006-events': m0006,
  // auth: register its migration here
  '0007-auth': m0007,

  // batches: register its migration here
  '0008-batches': m0008,

  // webhooks: register its migration here
  '0009-webhooks': m0009,

  // engagement: register its migration here
  '0010-comments': m0010,
  '0012-analytics': m0012, // analytics

  // automations: register its migration here
  '0011-automations': m0011,

  // hardening: register its migration here
  '0013-provider-webhooks': m0013, // provider webhooks
  '0014-oauth-secret-refs': m0014,
  '0015-publish-approvals': m0015, // approvals and lateness of publish jobs
  // stored batch previews, per-job batch events, OpenID Connect sign-in
  '0016-previews-sign-in': m0016,
  '0017-mcp-oauth': m0017, // the remote MCP endpoint's OAuth
  '0018-scale-indexes': m0018, // indexes for a year of history (bench:scale)
  '0020-retention': m0020, // the maintenance prune's indexes
  '0023-webhook-delivery-claims': m0023, // webhook deliveries claimed from their table
  '0024-identity-retention': m0024, // the prune of expired OAuth codes, tokens and exchange codes
  '0025-webhook-pending-index': m0025, // drops the pending deliveries' index no statement reads since 0023
  '0026-webhook-delivery-indexes': m0026, // the delivery log by status ranges, the prune's index of finished rows
  '0027-publish-target-indexes': m0027, // drops the channel index by scheduled time (the channel time index serves its reads)
  '0028-packed-preview-schedules': m0028, // a stored preview's schedule as compressed JSON, not jsonb
  '0029-webhook-delivery-leases': m0029, // the claim writes the lease column, not the indexed claim_at
  '0030-publish-target-notes': m0030, // a burst notes a published outcome on its target, written in full after
};
