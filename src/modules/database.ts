/**
 * The Database type: the foundation tables and every area's tables (each area owns its
 * `<area>.tables.ts`), and the typed executors the areas' repositories take. platform/db is generic
 * over the schema and never imports this file.
 */
import type { Kysely, Transaction } from 'kysely';
import type { FoundationTables } from '../platform/db/schema.js';
import type { EventTables } from '../platform/events/event-types.js';
import type { AnalyticsTables } from './analytics/analytics.tables.js';
import type { AutomationTables } from './automations/automations.tables.js';
import type { BatchTables } from './batches/batches.tables.js';
import type { ChannelTables } from './channels/channels.tables.js';
import type { CommentTables } from './comments/comments.tables.js';
import type { AuthTables } from './identity/auth.tables.js';
import type { MediaTables } from './media/media.tables.js';
import type { ProfileTables } from './profiles/profiles.tables.js';
import type { ProviderWebhookTables } from './provider-webhooks/provider-webhooks.tables.js';
import type { PublishingTables } from './publishing/publishing.tables.js';
import type { ToolTables } from './tools/tools.tables.js';
import type { WebhookTables } from './webhooks/webhooks.tables.js';

/** A new area adds its tables interface here. */
export interface Database
  extends FoundationTables,
    MediaTables,
    ChannelTables,
    ProfileTables,
    ToolTables,
    PublishingTables,
    AuthTables,
    BatchTables,
    WebhookTables,
    CommentTables,
    AnalyticsTables,
    AutomationTables,
    ProviderWebhookTables,
    EventTables {}

export type Db = Kysely<Database>;
type Tx = Transaction<Database>;
/** A Kysely executor: the database or an open transaction. */
export type Executor = Db | Tx;
