/** CLI: dashboard members, OAuth apps and the identity provider's join domains, on the root's identity services. */
import type { Config } from '../../config.js';
import { PUBLIC_SCOPES } from '../../http/principal.js';
import { args, type CliCommand, type CliOpener, required } from '../../platform/cli/cli-kit.js';
import { AppError } from '../../platform/errors.js';
import type { CredentialsService } from './credentials.service.js';
import type { IdentityService } from './identity.service.js';
import { clientSecretRefDigests } from './oauth-secret-refs.js';
import { isRole } from './policies.js';

/** What the identity commands use of the area (the root's `IdentityModule` has both). */
export interface IdentityCli {
  service: IdentityService;
  credentials: CredentialsService;
}

/** The identity commands; `open` runs one on the root's identity area (src/main/cli-root.ts). */
export const authCommands = (open: CliOpener<IdentityCli, Config>): CliCommand<Config>[] => [
  {
    name: 'members create',
    usage:
      'members create --organization ID --email E --password P [--role member|admin|owner] [--init] [--json]   a person who signs in to the dashboard',
    async run({ config, argv, out }) {
      const { values } = args(argv, {
        organization: { type: 'string' },
        email: { type: 'string' },
        password: { type: 'string' },
        role: { type: 'string' },
      });
      const role = (values.role as string | undefined) ?? 'admin';
      if (!isRole(role)) throw new AppError('invalid_request', { message: '--role must be member, admin or owner.' });
      const user = await open(
        config,
        (identity) =>
          identity.service.createUser(
            {
              organizationId: required(values, 'organization'),
              email: required(values, 'email'),
              password: required(values, 'password'),
              role,
            },
            new Date(),
          ),
        { creates: true, init: values.init === true },
      );
      out(user, values.json === true);
    },
  },
  {
    name: 'oauth-apps create',
    usage:
      'oauth-apps create --organization ID --name N --redirect-uri URL [--redirect-uri URL ...] --scopes a,b [--client-secret-ref env:NAME] [--json]   ' +
      'an OAuth app; with --client-secret-ref its secret is the SERVICE_OAUTH_CLIENT_SECRET_ENV_REFS entry NAME (operator-provisioned), otherwise one is generated and shown once',
    async run({ config, argv, out }) {
      const { values } = args(argv, {
        organization: { type: 'string' },
        name: { type: 'string' },
        'redirect-uri': { type: 'string', multiple: true },
        scopes: { type: 'string' },
        'client-secret-ref': { type: 'string' },
      });
      const redirectUris = (values['redirect-uri'] as string[] | undefined) ?? [];
      if (redirectUris.length === 0) throw new AppError('invalid_request', { message: '--redirect-uri is required.' });
      const scopes = required(values, 'scopes')
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      const unknown = scopes.filter((x) => !(PUBLIC_SCOPES as readonly string[]).includes(x));
      if (scopes.length === 0 || unknown.length > 0)
        throw new AppError('invalid_request', { message: `--scopes must list scopes among ${PUBLIC_SCOPES.join(', ')}.` });
      const ref = values['client-secret-ref'] as string | undefined;
      const created = await open(config, (identity) =>
        identity.credentials.createApp(
          required(values, 'organization'),
          { name: required(values, 'name'), redirectUris, scopes },
          ref ? { ref, digests: clientSecretRefDigests(config.env) } : undefined,
        ),
      );
      out(created, values.json === true);
    },
  },
  {
    name: 'identity-provider allow-domain',
    usage:
      'identity-provider allow-domain --organization ID --domain example.com [--role member|admin] [--json]   people with a verified email of the domain and no account join the organization at their first OpenID Connect sign-in',
    async run({ config, argv, out }) {
      const { values } = args(argv, { organization: { type: 'string' }, domain: { type: 'string' }, role: { type: 'string' } });
      const role = (values.role as string | undefined) ?? 'member';
      if (role !== 'member' && role !== 'admin') throw new AppError('invalid_request', { message: '--role must be member or admin.' });
      const domain = required(values, 'domain').trim().toLowerCase();
      if (!/^[a-z0-9.-]+\.[a-z]{2,}$/.test(domain))
        throw new AppError('invalid_request', { message: `--domain ${domain} is not a domain name.` });
      const organizationId = required(values, 'organization');
      await open(config, (identity) => identity.service.allowDomain({ organizationId, emailDomain: domain, role }, new Date()));
      out({ organizationId, emailDomain: domain, role }, values.json === true);
    },
  },
  {
    name: 'identity-provider remove-domain',
    usage: 'identity-provider remove-domain --organization ID --domain example.com [--json]   stop just-in-time membership for the domain',
    async run({ config, argv, out }) {
      const { values } = args(argv, { organization: { type: 'string' }, domain: { type: 'string' } });
      const organizationId = required(values, 'organization');
      const domain = required(values, 'domain').trim().toLowerCase();
      const removed = await open(config, (identity) => identity.service.removeDomain(organizationId, domain));
      out({ organizationId, emailDomain: domain, removed }, values.json === true);
    },
  },
];
