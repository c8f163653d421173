/**
 * The environment settings of the dashboard sessions, sign-in limits, the OAuth provider, the /mcp endpoint
 * and OpenID Connect sign-in: a part of EnvSchema (src/config.ts), spread there in this order so the README
 * table keeps it.
 */
import { Int, Str } from './config-fields.js';

export const SIGN_IN_SETTINGS = {
  SERVICE_DASHBOARD_ORIGINS: Str(
    'Comma-separated origins allowed to sign in and to send credentialed dashboard requests (e.g. https://app.example.com). Default: the origin of SERVICE_PUBLIC_BASE_URL, and on a loopback one (the embedded default) both spellings, localhost and 127.0.0.1, with its port.',
  ),
  SERVICE_DASHBOARD_SESSION_IDLE_SECONDS: Int(1_800, 'Dashboard session: idle expiry, renewed on each use.', 60),
  SERVICE_DASHBOARD_SESSION_ABSOLUTE_SECONDS: Int(43_200, 'Dashboard session: absolute lifetime from sign-in.', 60),
  SERVICE_SIGN_IN_MAX_ATTEMPTS_PER_ADDRESS: Int(20, 'Sign-in attempts allowed per client address per 15 minutes (then 429).', 1),
  SERVICE_SIGN_IN_MAX_FAILURES_PER_ACCOUNT_ADDRESS: Int(
    10,
    'Failed sign-ins allowed per email address from one client address per 15 minutes (then 429 for that pair only).',
    1,
  ),
  SERVICE_SIGN_IN_MAX_FAILURES_PER_ACCOUNT: Int(
    100,
    'Failed sign-ins allowed per email address from all client addresses together per 15 minutes (then 429); set well above the per-address limit so that nobody can lock the owner out from elsewhere.',
    1,
  ),
  SERVICE_OAUTH_ACCESS_TOKEN_TTL_SECONDS: Int(3_600, 'OAuth provider: access token lifetime.', 60),
  SERVICE_OAUTH_REFRESH_TOKEN_TTL_SECONDS: Int(1_209_600, 'OAuth provider: refresh token lifetime (14 days).', 60),
  SERVICE_OAUTH_CLIENT_SECRET_ENV_REFS: Str(
    'Comma-separated NAME=secret pairs: an OAuth app the operator provisions with `service-api oauth-apps create --client-secret-ref env:NAME` authenticates with the secret given for NAME here (tenants cannot set references).',
  ),
  SERVICE_OAUTH_TOKEN_REQUESTS_PER_MINUTE: Int(60, 'OAuth provider: token endpoint requests per client per minute (then 429).', 1),
  SERVICE_OAUTH_REGISTRATIONS_PER_HOUR: Int(
    20,
    'OAuth provider: dynamic client registrations (RFC 7591) per client address per hour (then 429).',
    1,
  ),
  SERVICE_MCP_ALLOWED_ORIGINS: Str(
    'Comma-separated browser origins allowed to call /mcp (requests without Origin, as MCP clients send, are allowed). Default: the dashboard origins.',
  ),
  SERVICE_MCP_ALLOWED_HOSTS: Str(
    'Comma-separated Host values /mcp answers (host or host:port). Default: the host of SERVICE_PUBLIC_BASE_URL, and localhost, 127.0.0.1 and [::1] on its port when that host is a loopback one.',
  ),
  SERVICE_OIDC_ISSUER: Str(
    'Optional OpenID Connect provider for dashboard sign-in: its issuer URL (https; http only on a loopback address), read by discovery. With SERVICE_OIDC_CLIENT_ID set, the sign-in page offers "Sign in with <SERVICE_OIDC_PROVIDER_NAME>" (docs/sessions.md).',
  ),
  SERVICE_OIDC_CLIENT_ID: Str('OpenID Connect sign-in: the client id registered at the provider.'),
  SERVICE_OIDC_CLIENT_SECRET: Str(
    'OpenID Connect sign-in: the client secret (sent as client_secret_post); unset for a public client (PKCE only).',
  ),
  SERVICE_OIDC_PROVIDER_NAME: Str('OpenID Connect sign-in: the name on the sign-in button.', 'identity provider'),
  SERVICE_OIDC_REDIRECT_URI: Str(
    'OpenID Connect sign-in: the redirect URI registered at the provider. Default: <SERVICE_PUBLIC_BASE_URL>/app/sign-in/identity-provider (the dashboard page that posts the code to /v1/auth/identity-provider/callback).',
  ),
};
