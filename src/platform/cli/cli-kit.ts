/** Small helpers shared by CLI commands: argument parsing, output, and opening the database for one command. */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type DatabaseHandle, type DatabaseSettings, embeddedSocketAlive, openDatabase } from '../db/database.js';
import { AppError } from '../errors.js';

/** A command's context; the root's commands read the whole Config (C), an area's only what opens its database. */
interface CliContext<C extends DatabaseSettings = DatabaseSettings> {
  config: C;
  argv: string[];
  out(value: unknown, json: boolean): void;
}

export interface CliCommand<C extends DatabaseSettings = DatabaseSettings> {
  /** e.g. "api-keys create" */
  name: string;
  usage: string;
  run(ctx: CliContext<C>): Promise<number | void>;
}

export type Options = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

export function args<T extends Options>(argv: string[], options: T) {
  try {
    return parseArgs({
      args: argv,
      options: { ...options, json: { type: 'boolean' }, init: { type: 'boolean' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    throw new AppError('invalid_request', { message: (err as Error).message });
  }
}

export function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new AppError('invalid_request', { message: `--${name} is required.` });
  return v;
}

/** What a command may do when the embedded data directory holds no database yet, and what else it needs. */
export interface DatabaseIntent {
  /** the command writes data (bootstrap, create, revoke ...) */
  creates?: boolean;
  /** the user passed --init: creating a new embedded database is intended */
  init?: boolean;
}

/**
 * How an area's commands reach what the composition root builds: the root (src/main/cli-root.ts) opens
 * the database for one command, composes the root, hands `fn` the area's part (A) and closes everything.
 */
export type CliOpener<A, C extends DatabaseSettings = DatabaseSettings> = <T>(
  config: C,
  fn: (area: A) => Promise<T>,
  intent?: DatabaseIntent,
) => Promise<T>;

/**
 * Opens the database for one CLI command and says on stderr which one it opened. In embedded mode a
 * running server's database is reached through its local socket (PGlite admits one process); otherwise
 * PGlite is opened directly. A new embedded database is created only by a command that writes data,
 * and outside the default data directory only with --init: a typo in SERVICE_DATA_DIR must not hand
 * out keys for an empty database while the server runs on another. The caller migrates and closes it.
 */
export async function openForCommand(config: DatabaseSettings, intent: DatabaseIntent = {}): Promise<DatabaseHandle> {
  let where: string;
  if (!config.embedded) {
    const url = new URL(config.env.DATABASE_URL!);
    where = `PostgreSQL ${url.hostname}:${url.port || 5432}${url.pathname}`;
  } else if (await embeddedSocketAlive(config.dbSocketPath)) {
    where = `embedded PGlite in ${config.dataDir} (through the running server's socket)`;
  } else {
    where = `embedded PGlite in ${config.dataDir}`;
    if (!fs.existsSync(path.join(config.dataDir, 'pgdata', 'PG_VERSION'))) {
      const isDefault = config.dataDir === path.resolve('.data');
      if (!intent.creates) {
        throw new AppError('invalid_request', {
          message: `no database in ${config.dataDir} yet (SERVICE_DATA_DIR); start the server or run bootstrap there first.`,
        });
      }
      if (!isDefault && !intent.init) {
        throw new AppError('invalid_request', {
          message: `no database in ${config.dataDir} yet (SERVICE_DATA_DIR); pass --init to create a new one there.`,
        });
      }
      where += ' (new)';
    }
  }
  process.stderr.write(`database: ${where}\n`);
  return openDatabase(config, { preferSocket: true });
}

export function printer(value: unknown, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    return;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) process.stdout.write(`${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}\n`);
  } else process.stdout.write(`${String(value)}\n`);
}
