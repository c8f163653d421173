import { args, type CliCommand, required, withDatabase } from '../../platform/cli/cli-kit.js';
import { AppError } from '../../platform/errors.js';
import { IdentityService } from './identity.service.js';
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
];
