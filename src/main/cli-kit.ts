/** Small helpers shared by CLI commands: argument parsing, output, and a database for one command. */
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { type DatabaseHandle, openDatabase } from '../platform/db/database.js';
import { migrateToLatest } from '../platform/db/migrate.js';
import { AppError } from '../platform/errors.js';

export interface CliContext {
  config: Config;
  argv: string[];
  out(value: unknown, json: boolean): void;
}

export interface CliCommand {
  /** e.g. "api-keys create" */
  name: string;
  usage: string;
  run(ctx: CliContext): Promise<number | void>;
}

export type Options = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

export function args<T extends Options>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options: { ...options, json: { type: 'boolean' } }, strict: true, allowPositionals: true });
  } catch (err) {
    throw new AppError('invalid_request', { message: (err as Error).message });
  }
}

export function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new AppError('invalid_request', { message: `--${name} is required.` });
  return v;
}

/**
 * Opens the database for one CLI command. In embedded mode a running server's database is reached
 * through its local socket (PGlite admits one process); otherwise PGlite is opened directly.
 */
export async function withDatabase<T>(config: Config, fn: (db: DatabaseHandle) => Promise<T>): Promise<T> {
  const handle = await openDatabase(config, { preferSocket: true });
  try {
    await migrateToLatest(handle.db);
    return await fn(handle);
  } finally {
    await handle.close();
  }
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
