import { args, type CliCommand, required, withDatabase } from '../../platform/cli/cli-kit.js';
import { AppError } from '../../platform/errors.js';
import { identityRepository } from './identity.repository.js';
import { IdentityService } from './identity.service.js';
import { identityProviderRepository } from './identity-provider.repository.js';
import { isRole } from './policies.js';

export const authCommands: CliCommand[] = [
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
      const user = await withDatabase(
        config,
        (h) =>
          new IdentityService(h.db).createUser(
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
      await withDatabase(config, async (h) => {
        if (!(await identityRepository.organizationExists(h.db, organizationId)))
          throw new AppError('invalid_request', { message: `No organization ${organizationId}.` });
        await identityProviderRepository.setJoinRule(h.db, { emailDomain: domain, organizationId, role, at: new Date() });
      });
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
      const removed = await withDatabase(config, (h) => identityProviderRepository.removeJoinRule(h.db, organizationId, domain));
      out({ organizationId, emailDomain: domain, removed }, values.json === true);
    },
  },
];
