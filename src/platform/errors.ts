/**
 * The one error catalog. Every error the service answers has a code here with its HTTP status and
 * category; handlers and services throw AppError(code) and one Fastify hook renders the body.
 * The publishing API codes are the specification's table (catalog version below); codes this service
 * adds are grouped at the end of each section and documented in the OpenAPI document.
 */
export const ERROR_CATALOG_VERSION = '2026-07-26';

type ErrorCategory =
  | 'validation'
  | 'configuration'
  | 'conflict'
  | 'authentication'
  | 'authorization'
  | 'feature_gate'
  | 'not_found'
  | 'rate_limit'
  | 'payload'
  | 'server';

interface CatalogEntry {
  status: number;
  category: ErrorCategory;
  /** default human message */
  message: string;
}

const e = (status: number, category: ErrorCategory, message: string): CatalogEntry => ({ status, category, message });

export const ERROR_CATALOG = {
  // ---- 400 validation (spec)
  invalid_request: e(400, 'validation', 'The request is not valid.'),
  invalid_oauth_token_request: e(400, 'validation', 'The token request body is not valid.'),
  invalid_public_oauth_authorize_request: e(400, 'validation', 'The authorize request is not valid.'),
  oauth_redirect_uri_not_registered: e(400, 'validation', 'The redirect URI is not registered for this app.'),
  oauth_authorization_code_invalid: e(
    400,
    'validation',
    'The authorization code is invalid, expired, consumed or issued to another client.',
  ),
  oauth_refresh_token_invalid: e(400, 'validation', 'The refresh token is invalid, expired, consumed or issued to another client.'),
  invalid_public_publish_plan_request: e(400, 'validation', 'The publish plan request is not valid.'),
  invalid_public_publish_job_request: e(400, 'validation', 'The publish job request is not valid.'),
  invalid_public_publish_job_query: e(400, 'validation', 'The publish job query is not valid.'),
  invalid_public_publish_enqueue_request: e(400, 'validation', 'The enqueue request is not valid.'),
  invalid_public_publish_slot_query: e(400, 'validation', 'The publish slot query is not valid.'),
  invalid_public_publish_schedule_request: e(400, 'validation', 'The schedule request is not valid.'),
  invalid_public_publish_cancel_request: e(400, 'validation', 'The cancel request is not valid.'),
  invalid_public_publish_url_reconciliation_request: e(400, 'validation', 'The URL reconciliation request is not valid.'),
  invalid_public_analytics_snapshot_query: e(400, 'validation', 'The analytics snapshot query is not valid.'),
  invalid_public_brand_query: e(400, 'validation', 'The brand query is not valid.'),
  invalid_public_channel_account_query: e(400, 'validation', 'The channel account query is not valid.'),
  invalid_public_channel_connect_url_request: e(400, 'validation', 'The connect URL request is not valid.'),
  channel_oauth_redirect_uri_forbidden: e(400, 'validation', 'The redirect URI differs from the server configuration.'),
  invalid_public_media_upload_request: e(400, 'validation', 'The media upload request is not valid.'),
  invalid_multipart_media_upload: e(400, 'validation', 'The request is not a valid multipart/form-data upload.'),
  multipart_media_file_required: e(400, 'validation', 'The multipart upload must carry a non-empty file field.'),
  media_file_too_large: e(400, 'validation', 'The file is larger than the configured maximum.'),
  invalid_public_comment_reply_draft_request: e(400, 'validation', 'The reply draft request is not valid.'),
  invalid_public_social_comment_reply_request: e(400, 'validation', 'The comment reply request is not valid.'),
  invalid_public_social_comment_reply_query: e(400, 'validation', 'The comment reply query is not valid.'),
  invalid_public_webhook_endpoint_query: e(400, 'validation', 'The webhook endpoint query is not valid.'),
  invalid_public_webhook_endpoint_create_request: e(400, 'validation', 'The webhook endpoint create request is not valid.'),
  invalid_public_webhook_endpoint_update_request: e(400, 'validation', 'The webhook endpoint update request is not valid.'),
  invalid_public_webhook_endpoint_delete_request: e(400, 'validation', 'The webhook endpoint delete request is not valid.'),
  webhook_url_invalid: e(400, 'validation', 'The webhook URL is not safe for outbound delivery.'),
  invalid_public_automation_source_query: e(400, 'validation', 'The automation source query is not valid.'),
  invalid_public_automation_source_create_request: e(400, 'validation', 'The automation source create request is not valid.'),
  invalid_public_automation_source_update_request: e(400, 'validation', 'The automation source update request is not valid.'),
  invalid_public_automation_source_delete_request: e(400, 'validation', 'The automation source delete request is not valid.'),
  invalid_public_automation_run_query: e(400, 'validation', 'The automation run query is not valid.'),
  invalid_public_automation_run_create_request: e(400, 'validation', 'The automation run create request is not valid.'),
  invalid_public_automation_run_record_request: e(400, 'validation', 'The automation run record request is not valid.'),
  // ---- 400 configuration (spec)
  invalid_public_api_rate_limit_store: e(400, 'configuration', 'The configured rate-limit store is not supported.'),
  database_url_required: e(400, 'configuration', 'DATABASE_URL is required for this configuration.'),
  redis_url_required: e(400, 'configuration', 'REDIS_URL is required for the configured store.'),
  oauth_client_secret_unavailable: e(
    400,
    'configuration',
    "The OAuth app's operator-provisioned client secret is not configured on the server (ask the operator).",
  ),
  channel_oauth_config_missing: e(400, 'configuration', 'The platform OAuth configuration is missing.'),
  channel_oauth_config_invalid: e(400, 'configuration', 'The platform OAuth configuration is invalid.'),
  // ---- 400 conflict (spec)
  oauth_authorization_code_consumed: e(400, 'conflict', 'The authorization code was already used.'),
  oauth_refresh_token_consumed: e(400, 'conflict', 'The refresh token was already used.'),
  // ---- 401 (spec)
  public_api_token_required: e(401, 'authentication', 'A bearer credential is required.'),
  public_api_token_forbidden: e(401, 'authentication', 'The credential is not authorized for this route.'),
  invalid_client: e(401, 'authentication', 'The client credentials are invalid.'),
  // ---- 403 feature gates (spec)
  public_api_disabled: e(403, 'feature_gate', 'The public API is disabled.'),
  public_oauth_disabled: e(403, 'feature_gate', 'The public OAuth provider is disabled.'),
  publish_job_write_disabled: e(403, 'feature_gate', 'Publish job persistence is disabled.'),
  publish_enqueue_disabled: e(403, 'feature_gate', 'Publish queueing is disabled.'),
  publish_schedule_write_disabled: e(403, 'feature_gate', 'Publish scheduling is disabled.'),
  publish_cancel_write_disabled: e(403, 'feature_gate', 'Publish cancellation is disabled.'),
  media_upload_write_disabled: e(403, 'feature_gate', 'Media uploads are disabled.'),
  provider_comment_reply_disabled: e(403, 'feature_gate', 'Live provider comment replies are disabled.'),
  social_comment_write_disabled: e(403, 'feature_gate', 'Social comment writes are disabled.'),
  publish_url_reconciliation_disabled: e(403, 'feature_gate', 'Publish URL reconciliation is disabled.'),
  webhook_write_disabled: e(403, 'feature_gate', 'Webhook endpoint writes are disabled.'),
  automation_write_disabled: e(403, 'feature_gate', 'Automation writes are disabled.'),
  // ---- 404 (spec)
  oauth_app_not_found: e(404, 'not_found', 'No such OAuth app in the principal organization.'),
  public_publish_job_not_found: e(404, 'not_found', 'No such publish job in the principal organization.'),
  social_comment_not_found: e(404, 'not_found', 'No such social comment in the principal organization.'),
  webhook_endpoint_not_found: e(404, 'not_found', 'No such webhook endpoint in the principal organization.'),
  automation_source_not_found: e(404, 'not_found', 'No such automation source in the principal organization.'),
  automation_source_not_runnable: e(404, 'not_found', 'The automation source is missing, disabled or deleted.'),
  automation_run_not_found: e(404, 'not_found', 'No such automation run in the principal organization.'),
  // ---- 409 / 421 / 422 / 429 / 500 (spec)
  automation_run_invalid_transition: e(409, 'conflict', 'The automation run cannot move to that state.'),
  request_origin_not_allowed: e(421, 'authorization', 'The request origin is not permitted.'),
  publish_plan_validation_failed: e(422, 'validation', 'The publish plan has blocking validation issues.'),
  provider_comment_reply_unsupported: e(422, 'validation', 'The provider does not support comment replies.'),
  public_api_rate_limited: e(429, 'rate_limit', 'Too many requests; retry after the indicated time.'),
  internal_server_error: e(500, 'server', 'An unexpected error occurred.'),
  oauth_authorization_write_failed: e(500, 'server', 'The authorization could not be saved.'),
  oauth_authorization_code_write_failed: e(500, 'server', 'The authorization code could not be saved.'),
  oauth_access_token_write_failed: e(500, 'server', 'The access token could not be saved.'),
  oauth_refresh_token_write_failed: e(500, 'server', 'The refresh token could not be saved.'),
  webhook_endpoint_create_failed: e(500, 'server', 'The webhook endpoint could not be created.'),
  automation_source_create_failed: e(500, 'server', 'The automation source could not be created.'),

  // ---- codes this service adds (documented in the OpenAPI document and docs/errors.md)
  not_found: e(404, 'not_found', 'No such route.'),
  method_not_allowed: e(405, 'validation', 'The method is not allowed on this route.'),
  payload_too_large: e(413, 'payload', 'The request body is larger than allowed.'),
  unsupported_media_type: e(415, 'validation', 'The request content type is not supported.'),
  service_unavailable: e(503, 'server', 'The service is shutting down or not ready.'),
  brand_not_found: e(404, 'not_found', 'No such brand in the principal organization.'),

  // ---- auth: codes added by sign-in, dashboard policies and the OAuth provider
  permission_denied: e(403, 'authorization', 'The caller is not allowed to perform this action.'),
  dashboard_session_required: e(401, 'authentication', 'A dashboard session is required (sign in).'),
  sign_in_failed: e(401, 'authentication', 'The email or password is wrong.'),
  password_policy_violation: e(
    400,
    'validation',
    'The password is too short (under 8 characters), too long (over 256 bytes), or one of the most common or breached passwords.',
  ),
  browser_session_exchange_failed: e(400, 'validation', 'The sign-in code is invalid, expired, already used or not bound to this browser.'),
  invalid_identity_provider_request: e(400, 'validation', 'The identity provider sign-in request is not valid.'),
  identity_provider_not_configured: e(404, 'not_found', 'Sign-in through an identity provider is not configured (SERVICE_OIDC_*).'),
  identity_provider_sign_in_failed: e(
    400,
    'validation',
    "The identity provider's answer could not be used: unknown, expired or replayed state, not bound to this browser, or an invalid code or ID token.",
  ),
  identity_provider_account_not_allowed: e(
    403,
    'authorization',
    'The identity provider signed the person in, but no account matches their verified email and no organization lets their email domain join.',
  ),
  request_origin_not_approved: e(403, 'authorization', 'The Origin of this request is not an approved dashboard origin.'),
  api_key_not_found: e(404, 'not_found', 'No such API key in the organization.'),
  oauth_grant_not_found: e(404, 'not_found', 'No such OAuth grant in the organization.'),
  // the remote MCP endpoint and its OAuth (RFC 7591 registration, RFC 8707 resources)
  invalid_client_metadata: e(400, 'validation', 'The client registration metadata is not valid.'),
  invalid_redirect_uri: e(400, 'validation', 'A redirect URI must be https, or http on a loopback address.'),
  invalid_target: e(400, 'validation', 'The resource is not one this server issues tokens for, or not the one of the grant.'),
  mcp_origin_not_allowed: e(403, 'authorization', 'The Origin of this request may not call the MCP endpoint.'),
  mcp_session_not_found: e(404, 'not_found', 'No such MCP session for this credential (initialize a new one).'),
  invalid_tool_api_key_request: e(
    400,
    'validation',
    'The tool API key request is not valid (name, or scopes of the form tools:<tool>:<action>).',
  ),
  tool_api_key_not_found: e(404, 'not_found', 'No such tool API key of the signed-in user.'),

  // ---- tools: tool API codes (tool-api.md; rendered in the tool API envelope)
  authentication_required: e(401, 'authentication', 'An API key is required.'),
  invalid_api_key: e(401, 'authentication', 'The API key is unknown or revoked.'),
  membership_required: e(403, 'authorization', 'Your membership tier has no API access.'),
  insufficient_scope: e(403, 'authorization', 'The API key lacks the scope for this tool.'),
  idempotency_conflict: e(409, 'conflict', 'The Idempotency-Key was used with a different body.'),
  idempotency_in_progress: e(409, 'conflict', 'A request with this Idempotency-Key is still running.'),
  quota_exceeded: e(429, 'rate_limit', 'The daily quota is exhausted.'),
  rate_limited: e(429, 'rate_limit', 'The minute limit is exceeded.'),
  concurrency_limited: e(429, 'rate_limit', 'Another request for this key and tool is running.'),

  // ---- media: codes added by the media library
  media_library_item_not_found: e(404, 'not_found', 'No such media library item in the principal organization.'),
  media_item_in_use: e(409, 'conflict', 'The media item is referenced by a scheduled publish target.'),
  media_import_url_refused: e(400, 'validation', 'The import URL is not allowed for outbound fetching.'),
  media_import_fetch_failed: e(502, 'server', 'The remote media could not be fetched.'),
  media_range_not_satisfiable: e(416, 'validation', 'The requested byte range is outside the media content.'),
  invalid_public_media_query: e(400, 'validation', 'The media query (list, item or content) is not valid.'),
  invalid_public_media_delete_request: e(400, 'validation', 'The media delete request is not valid.'),

  // ---- channels: codes added by channels, providers and profiles
  invalid_public_channel_account_request: e(400, 'validation', 'The channel account request is not valid.'),
  invalid_public_publishing_profile_request: e(400, 'validation', 'The publishing profile request is not valid.'),
  invalid_public_publishing_profile_query: e(400, 'validation', 'The publishing profile query is not valid.'),
  invalid_public_provider_tool_request: e(400, 'validation', 'The provider tool request is not valid.'),
  channel_token_ref_unresolvable: e(400, 'validation', 'The token reference does not name a secret the service can resolve.'),
  channel_oauth_state_invalid: e(400, 'validation', 'The OAuth state is unknown, expired, already used or for another platform.'),
  provider_tool_unsupported: e(400, 'validation', "The channel's platform does not support this tool."),
  organization_not_found: e(404, 'not_found', 'The organizationId is not the principal organization.'),
  channel_account_not_found: e(404, 'not_found', 'No such channel account in the principal organization.'),
  publishing_profile_not_found: e(404, 'not_found', 'No such publishing profile in the principal organization.'),
  product_not_found: e(404, 'not_found', 'No such product in the brand of the principal organization.'),
  channel_account_invalid_transition: e(409, 'conflict', 'The channel account cannot move to that state.'),
  channel_account_not_connected: e(409, 'conflict', 'The channel account is not connected.'),
  provider_rate_limited: e(429, 'rate_limit', 'The platform rate limit was reached; retry after the indicated time.'),
  channel_oauth_exchange_failed: e(502, 'server', 'The platform refused the authorization code or the account lookup.'),
  provider_request_failed: e(502, 'server', 'The platform call failed.'),

  // ---- publishing: codes added by the publishing engine
  publish_job_not_enqueueable: e(409, 'conflict', 'No target of the publish job can be queued from its current state.'),
  publish_job_not_schedulable: e(409, 'conflict', 'No target of the publish job can be rescheduled from its current state.'),
  publish_job_not_cancellable: e(409, 'conflict', 'No target of the publish job can be cancelled from its current state.'),
  publish_idempotency_key_reused: e(409, 'conflict', 'The idempotencyKey was used for a different publish request.'),
  publish_job_invalid_transition: e(409, 'conflict', 'The publish job cannot move to that approval state.'),
  invalid_public_publish_submit_request: e(400, 'validation', 'The submit-for-approval request is not valid.'),
  invalid_public_publish_approve_request: e(400, 'validation', 'The approve request is not valid.'),
  invalid_public_publish_reject_request: e(400, 'validation', 'The reject request is not valid.'),
  invalid_public_publishing_settings_request: e(400, 'validation', 'The publishing settings request is not valid.'),
  internal_token_required: e(401, 'authentication', 'The x-service-internal-token header is required.'),
  internal_token_forbidden: e(403, 'authorization', 'The internal token is not valid (or internal routes are not configured).'),

  // ---- batches: codes added by publish batches and assets
  invalid_public_publish_batch_request: e(400, 'validation', 'The publish batch request is not valid.'),
  invalid_public_publish_batch_query: e(400, 'validation', 'The publish batch query is not valid.'),
  invalid_public_asset_query: e(400, 'validation', 'The asset query is not valid.'),
  publish_batch_not_found: e(404, 'not_found', 'No such publish batch in the principal organization.'),
  asset_not_found: e(404, 'not_found', 'No such asset in the principal organization.'),
  publish_batch_idempotency_key_reused: e(409, 'conflict', 'The idempotencyKey was used for a different batch request.'),
  publish_batch_preview_expired: e(
    409,
    'conflict',
    'The batchPreviewId names no stored preview of the organization (unknown or expired); preview again.',
  ),
  publish_batch_preview_mismatch: e(409, 'conflict', 'The commit request differs from the request its batchPreviewId was previewed with.'),
  publish_batch_preview_stale: e(
    409,
    'conflict',
    "The channels' posts changed since the preview so that its schedule no longer holds (details.conflicts); preview again.",
  ),
  // ---- provider webhooks: inbound platform deliveries and their handshakes
  provider_webhook_not_found: e(404, 'not_found', 'No inbound webhook endpoint for this platform.'),
  provider_webhook_signature_invalid: e(401, 'authentication', "The delivery's signature is missing or does not match."),
  provider_webhook_verification_failed: e(403, 'authorization', 'The subscription verification request is not valid.'),
  // ---- operation validation codes added beside the specification's (one per operation group)
  invalid_public_social_comment_query: e(400, 'validation', 'The social comment query is not valid.'),
  invalid_public_social_comment_sync_request: e(400, 'validation', 'The social comment sync request is not valid.'),
  invalid_public_social_comment_hide_request: e(400, 'validation', 'The social comment hide request is not valid.'),
  invalid_public_analytics_sync_request: e(400, 'validation', 'The analytics sync request is not valid.'),
  invalid_public_brand_request: e(400, 'validation', 'The brand or product create request is not valid.'),
  invalid_public_webhook_delivery_request: e(400, 'validation', 'The webhook delivery request is not valid.'),
  invalid_credential_query: e(400, 'validation', 'The API key, OAuth app or grant query is not valid.'),
  invalid_credential_request: e(400, 'validation', 'The API key, OAuth app or grant request is not valid.'),
  invalid_browser_session_request: e(400, 'validation', 'The browser session request is not valid.'),
  invalid_provider_webhook_request: e(400, 'validation', 'The provider webhook request is not valid.'),
  invalid_provider_webhook_provision_request: e(400, 'validation', 'The provider webhook provision request is not valid.'),
  // ---- hardening: errors raised before a route runs (HTTP parser, router)
  request_timeout: e(408, 'validation', 'The request was not received completely in time.'),
  request_uri_too_long: e(414, 'validation', 'The request path is too long.'),
  request_header_too_large: e(431, 'validation', 'The request headers are too large.'),
} as const satisfies Record<string, CatalogEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export interface FieldIssue {
  path: string[];
  source: 'body' | 'query' | 'params';
  /** what is wrong, naming what is allowed (enum values, bounds, the allowed properties) */
  message?: string;
  /** the values (or property names) allowed at the path, when they are a short list */
  allowed?: unknown[];
}

export interface AppErrorOptions {
  message?: string;
  fields?: FieldIssue[];
  /** extra top-level properties of the body (ErrorResponse allows additional properties) */
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly fields?: FieldIssue[];
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, options: AppErrorOptions = {}) {
    super(options.message ?? ERROR_CATALOG[code].message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.fields = options.fields;
    this.details = options.details;
    this.headers = options.headers;
  }
}

export const isAppError = (err: unknown): err is AppError => err instanceof AppError;
