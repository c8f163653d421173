/**
 * The service as a user runs it: `service-api start` in a child process on an embedded data dir, and
 * the CLI next to it. For tests of start-up, restarts and the docs' walkthroughs.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';

/** The command as a user runs it: bin/service-api.mjs, the sources through tsx. */
export const SOURCE_BIN = path.resolve(import.meta.dirname, '../../bin/service-api.mjs');

/**
 * The command the tests start: the test run's bundle of src/main/cli.ts when the runner built one
 * (SERVICE_TEST_CLI, scripts/test-bundle.ts: the same sources, a third of the start-up CPU), else the bin.
 */
export const BIN = process.env.SERVICE_TEST_CLI || SOURCE_BIN;

/** The node arguments that run `service-api <args>` with BIN. */
export function serviceArgs(...args: string[]): string[] {
  return [BIN, ...args];
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

// a fresh connection per request: a pooled one may have been closed by a server restarted meanwhile
export const fetchFresh = (url: string | URL, init: Parameters<typeof undiciFetch>[1] = {}) =>
  undiciFetch(url, { redirect: 'manual', ...init, dispatcher: new Agent({ keepAliveTimeout: 10, keepAliveMaxTimeout: 10 }) });

/** The environment of a service on `dataDir` and `port` (embedded: no DATABASE_URL, no REDIS_URL). */
export function serviceEnv(dataDir: string, port: number, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    SERVICE_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    SERVICE_LOG_LEVEL: 'info',
    ...extra,
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  return env;
}

export interface ServiceProcess {
  base: string;
  /** everything the process wrote (stdout and stderr) so far */
  output(): string;
  /** SIGTERM and wait for the exit code */
  stop(): Promise<number | null>;
  kill(): void;
}

/** `bin`: the command's script (default BIN; SOURCE_BIN, or a production build's dist/main/cli.js) */
export async function startService(env: Record<string, string>, timeoutMs = 180_000, bin = BIN): Promise<ServiceProcess> {
  const base = `http://127.0.0.1:${env.PORT}`;
  const child: ChildProcess = spawn(process.execPath, [bin, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // a test file that times out ends without its after hooks: the service must not outlive it
  const killOnExit = () => child.exitCode === null && child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetchFresh(`${base}/v1/health/live`)).ok) break;
    } catch {}
    assert.ok(child.exitCode === null, `the service exited:\n${log}`);
    assert.ok(Date.now() < deadline, `the service did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    base,
    output: () => log,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      return exited;
    },
    kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

export function runCli(env: Record<string, string>, ...args: string[]) {
  return runCliOf(BIN, env, ...args);
}

/** runCli with another command script (a production build's dist/main/cli.js). */
export function runCliOf(bin: string, env: Record<string, string>, ...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8', timeout: 60_000 });
}
