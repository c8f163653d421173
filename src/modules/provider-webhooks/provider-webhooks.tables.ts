/**
 * Row types of the provider webhook tables (migration 0013-provider-webhooks). Neither belongs to an
 * organization: a delivery is recorded as the platform sent it, before it is attributed (it names
 * platform accounts; the organizations are found through the channels area when it is processed), and a
 * subscription is the service's own registration at a platform, one per platform and topic.
 */
import type { ColumnType } from 'kysely';
import type { Json, Timestamp } from '../../platform/db/schema.js';

interface ProviderWebhookDeliveriesTable {
  id: string;
  platform: string;
  dedupe_key: string;
  payload: Json<unknown>;
  event_count: number;
  received_at: Timestamp;
  processed_at: Date | null;
  outcome: ColumnType<Record<string, unknown> | null, string | null, string | null>;
}

interface ProviderWebhookSubscriptionsTable {
  id: string;
  platform: string;
  topic: string;
  callback_url: string;
  /** pending: asked, waiting for the platform's verification; active: verified; failed */
  state: 'pending' | 'active' | 'failed';
  lease_expires_at: Date | null;
  details: Json<Record<string, unknown>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ProviderWebhookTables {
  provider_webhook_deliveries: ProviderWebhookDeliveriesTable;
  provider_webhook_subscriptions: ProviderWebhookSubscriptionsTable;
}
