/**
 * service-api command line. Every command reads the same environment as the server (src/config.ts),
 * runs on the composition root (cli-root.ts) and reports bad input as one clear line on stderr, exit
 * code 1, never a stack trace.
 */
import { type Config, ConfigError, loadConfig } from '../config.js';
import { authCommands } from '../modules/identity/auth.cli.js';
import { toolCommands } from '../modules/tools/tools.cli.js';
import type { CliCommand } from '../platform/cli/cli-kit.js';
import { printer } from '../platform/cli/cli-kit.js';
import { AppError } from '../platform/errors.js';
import { foundationCommands } from './cli-commands.js';
import { listCommands } from './cli-lists.js';
import { openIdentity, openToolKeys } from './cli-root.js';
import { mcpCommands } from './mcp.cli.js';

const commands: CliCommand<Config>[] = [
  ...foundationCommands,
  // tools: add the tool API commands here
  ...toolCommands(openToolKeys),
  ...authCommands(openIdentity),
  ...listCommands,
  ...mcpCommands,
];

function usage(): string {
  return ['usage: service-api <command> [options]', '', 'commands:', ...commands.map((c) => `  ${c.usage}`)].join('\n');
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === 'help') {
    process.stdout.write(`${usage()}\n`);
    return argv.length === 0 ? 1 : 0;
  }
  // longest matching command name ("api-keys create" before "api")
  const match = [...commands]
    .sort((a, b) => b.name.split(' ').length - a.name.split(' ').length)
    .find((c) => c.name.split(' ').every((word, i) => argv[i] === word));
  if (!match) {
    const words = argv.slice(0, 2).filter((w, i) => !w.startsWith('-') && (i === 0 || !argv[0]!.startsWith('-')));
    const known = commands.some((c) => c.name.split(' ')[0] === words[0]);
    process.stderr.write(`error: unknown command "${known ? words.join(' ') : (words[0] ?? argv[0])}"\n\n${usage()}\n`);
    return 1;
  }
  const config = loadConfig();
  const code = await match.run({ config, argv: argv.slice(match.name.split(' ').length), out: printer });
  return typeof code === 'number' ? code : 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof AppError) process.stderr.write(`error: ${err.message} (${err.code})\n`);
    else if (err instanceof ConfigError) process.stderr.write(`error: ${err.message}\n`);
    else process.stderr.write(`error: ${(err as Error)?.message ?? String(err)}\n`);
    process.exitCode = 1;
  },
);
