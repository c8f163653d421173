/** CLI: users and their membership tier, and tool API keys. The full key is printed once, at creation. */
import type { Config } from '../../config.js';
import { args, type CliCommand, type CliOpener, required } from '../../platform/cli/cli-kit.js';
import { parseTier, parseToolScopes, type ToolKeysService } from './tool-keys.service.js';

/**
 * The tool API commands; `open` runs one on the root's keys service (src/main/cli-root.ts). Tier changes and
 * revocations reach the servers' auth caches: a notification on PostgreSQL (tool-auth-cache.ts); an embedded
 * server notices writes made through its database socket by itself.
 */
export const toolCommands = (open: CliOpener<ToolKeysService, Config>): CliCommand<Config>[] => [
  {
    name: 'users create',
    usage: 'users create --email E [--tier basic|pro|max] [--init] [--json]   a tool API user (tier default basic)',
    async run({ config, argv, out }) {
      const { values } = args(argv, { email: { type: 'string' }, tier: { type: 'string' } });
      const email = required(values, 'email');
      const tier = parseTier(values.tier as string | undefined, 'basic');
      const user = await open(config, (keys) => keys.createUser({ email, tier }, new Date()), {
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
      const result = await open(config, (keys) => keys.setTier({ email, tier }, new Date()));
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
      const key = await open(config, (keys) => keys.createKey({ email, scopes, name: values.name as string | undefined }, new Date()));
      out(key, values.json === true);
    },
  },
  {
    name: 'tool-keys list',
    usage: 'tool-keys list --email E [--json]           masked keys of a user',
    async run({ config, argv }) {
      const { values } = args(argv, { email: { type: 'string' } });
      const email = required(values, 'email');
      const keys = await open(config, (service) => service.listKeys(email));
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
      const result = await open(config, (keys) => keys.revokeKey(id, new Date()));
      out(result, values.json === true);
    },
  },
];
