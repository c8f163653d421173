/**
 * The sandbox walkthrough of docs/channels.md ("Sandbox mode, step by step"), run as written: step 1
 * starts `service-api start` with the step's environment on a fresh data dir, and the fenced `sh` blocks
 * of the later steps run in one bash session (curl, jq) against it. Only the port differs (a free one
 * instead of 8080), and `npx service-api` is this checkout's bin, which is what npx runs in the repo.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { BIN, freePort, type ServiceProcess, serviceEnv, startService } from '../support/service-process.js';

const DOC = path.resolve(import.meta.dirname, '../../docs/channels.md');
const START = 'SERVICE_PROVIDER_MODE=sandbox PORT=8080 npm start';

/** The fenced sh blocks of the walkthrough section, in order, each with the number of its step. */
export function walkthroughBlocks(markdown: string): Array<{ step: number; code: string }> {
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Sandbox mode, step by step'));
  assert.ok(section, 'docs/channels.md has the walkthrough section');
  const blocks: Array<{ step: number; code: string }> = [];
  let step = 0;
  const lines = section.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const n = /^(\d+)\. /.exec(lines[i]!);
    if (n) step = Number(n[1]);
    const fence = /^(\s*)```sh\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const indent = fence[1]!.length;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i++) body.push(lines[i]!.slice(indent));
    blocks.push({ step, code: body.join('\n') });
  }
  return blocks;
}

function bash(script: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('docs/channels.md sandbox walkthrough', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'service-api-walkthrough-'));
  let service: ServiceProcess | null = null;
  after(() => {
    service?.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs top to bottom on a fresh data dir as written', async () => {
    const blocks = walkthroughBlocks(fs.readFileSync(DOC, 'utf8'));
    assert.deepEqual(
      blocks.map((b) => b.step),
      [1, 2, 3, 4, 5, 5, 6, 7],
    );
    assert.equal(blocks[0]!.code.trim(), START, 'step 1 starts the service as this test does');
    const port = await freePort();
    const env = serviceEnv(dataDir, port, { SERVICE_PROVIDER_MODE: 'sandbox' });
    service = await startService(env);

    const script = [
      'set -euo pipefail',
      `npx() { if [ "$1" = service-api ]; then shift; "${process.execPath}" "${BIN}" "$@"; else command npx "$@"; fi; }`,
      ...blocks.slice(1).map((b, i) => `echo "### step ${b.step}.${i}"\n${b.code.replaceAll('8080', String(port))}`),
    ].join('\n');
    const res = await bash(script, env);
    const out = res.stdout;
    assert.equal(res.code, 0, `${out}\n${res.stderr}\n${service.output()}`);
    const step = (n: number) =>
      out
        .split(/^### step /m)
        .filter((s) => s.startsWith(`${n}.`))
        .join('\n');
    assert.match(step(2), /^org_\S+ brd_\S+$/m, out);
    assert.match(step(3), new RegExp(`^http://localhost:${port}/sandbox/x/i/oauth2/authorize\\?`, 'm'), out);
    assert.match(step(4), /^cha_\S+$/m, out);
    assert.match(step(5), /\{"channelAccountId":"cha_\S+","state":"connected"\}/, out);
    assert.match(
      step(5),
      /\{"status":"published","targets":\[\{"platform":"x","state":"published","providerPostId":"\d+","providerUrl":"https:\/\/x\.com\//,
    );
    assert.match(step(5), /^publish job job_\S+: published/m, out);
    assert.match(step(6), /\{"state":"connected","displayName":"Sandbox Coffee"\}/, out);
    assert.match(step(7), /"revokedChannelTokenCount":1/, out);
    // the disconnected X channel is gone from the list; the Facebook Page stays
    assert.match(step(7), /^cha_\S+\s+facebook_page\s+Sandbox Coffee\s+\S+\s+connected\s/m, out);
    assert.doesNotMatch(step(7), /^cha_\S+\s+x\s/m, out);
    assert.match(res.stderr, /^database: embedded PGlite in .* \(through the running server's socket\)$/m);
    assert.equal(await service.stop(), 0, service.output());
  });
});
