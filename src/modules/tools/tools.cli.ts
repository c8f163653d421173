/** CLI: users and their membership tier, and tool API keys. The full key is printed once, at creation. */
import type { Config } from '../../config.js';
import { args, type CliCommand, required, withDatabase } from '../../platform/cli/cli-kit.js';
import { closeCounters, createCounters } from '../../platform/counters/index.js';
import type { DatabaseHandle } from '../../platform/db/database.js';
import type { UsersAdminPort, UsersReadPort } from '../identity/identity.module.js';
import { parseTier, parseToolScopes, ToolKeysService } from './tool-keys.service.js';

/**
 * A service whose tier changes and revocations reach the servers' auth caches: through Redis when
 * configured; an embedded server notices writes made through its database socket by itself.
 */
async function withKeysService<T>(
  config: Config,
  users: UsersReadPort & UsersAdminPort,
  fn: (service: ToolKeysService) => Promise<T>,
): Promise<T> {
  const counters = config.env.REDIS_URL ? createCounters(config.env.REDIS_URL) : null;
  try {
    return await withDatabase(config, (h: DatabaseHandle) => fn(new ToolKeysService(h.db, counters?.redis ?? null, users)));
  } finally {
    if (counters) await closeCounters(counters);
  }
}

/** The tool API commands; `users` is the identity area's users port (the root hands it over). */
export const toolCommands = (users: UsersReadPort & UsersAdminPort): CliCommand<Config>[] => [
  {
    name: 'users create',
    usage: 'users create --email E [--tier basic|pro|max] [--init] [--json]   a tool API user (tier default basic)',
    async run({ config, argv, out }) {
      const { values } = args(argv, { email: { type: 'string' }, tier: { type: 'string' } });
      const email = required(values, 'email');
      const tier = parseTier(values.tier as string | undefined, 'basic');
      const user = await withDatabase(config, (h) => new ToolKeysService(h.db, null, users).createUser({ email, tier }, new Date()), {
        creates: true,
        init: values.init === true,
      });
      out(user, values.json === true);
    },
  },
  {
    name: 'users set-tier',
    usage: 'users set-tier --email E --tier basic|pro|max [--json]   applies from the next request',
    async run({ config, argv, out }) {
      const { values } = args(argv, { email: { type: 'string' }, tier: { type: 'string' } });
      const email = required(values, 'email');
      const tier = parseTier(required(values, 'tier'), 'basic');
      const result = await withKeysService(config, users, (service) => service.setTier({ email, tier }, new Date()));
      out(result, values.json === true);
    },
  },
  {
    name: 'tool-keys create',
    usage: 'tool-keys create --email E [--scopes tools:utm-builder:build,tools:qrcode:generate|tools:*] [--name N] [--json]',
    async run({ config, argv, out }) {
      const { values } = args(argv, { email: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' } });
      const email = required(values, 'email');
      const scopes = parseToolScopes(values.scopes as string | undefined);
      const key = await withDatabase(config, (h) =>
        new ToolKeysService(h.db, null, users).createKey({ email, scopes, name: values.name as string | undefined }, new Date()),
      );
      out(key, values.json === true);
    },
  },
  {
    name: 'tool-keys list',
    usage: 'tool-keys list --email E [--json]           masked keys of a user',
    async run({ config, argv }) {
      const { values } = args(argv, { email: { type: 'string' } });
      const email = required(values, 'email');
      const keys = await withDatabase(config, (h) => new ToolKeysService(h.db, null, users).listKeys(email));
      if (values.json === true) {
        process.stdout.write(`${JSON.stringify(keys, null, 2)}\n`);
        return;
      }
      for (const k of keys) {
        process.stdout.write(`${k.apiKeyId}  ${k.maskedKey}  ${k.status}  ${k.scopes.join(',')}  last used ${k.lastUsedAt ?? 'never'}\n`);
      }
      if (keys.length === 0) process.stdout.write('no tool API keys\n');
    },
  },
  {
    name: 'tool-keys revoke',
    usage: 'tool-keys revoke ID [--json]                revoke a tool API key',
    async run({ config, argv, out }) {
      const { values, positionals } = args(argv, {});
      const id = positionals[0];
      if (!id) {
        process.stderr.write('error: tool-keys revoke needs the key id\n');
        return 1;
      }
      const result = await withKeysService(config, users, (service) => service.revokeKey(id, new Date()));
      out(result, values.json === true);
    },
  },
];
