/**
 * Refreshes the vendored sources of the converted descriptions and shows what changed:
 *
 *   youtube          the YouTube Data API v3 discovery document (and YouTube Analytics v2 beside it), from
 *                    googleapis/google-api-go-client (youtube/v3/youtube-api.json; the same document the
 *                    Node.js client vendors as discovery/youtube-v3.json)
 *   facebook-graph   Meta's node specs (api_specs/specs/<Node>.json for the nodes listed in source.json, and
 *                    the entries of api_specs/specs/enum_types.json they reference), from
 *                    facebook/facebook-business-sdk-codegen
 *
 * then rebuilds contracts/{youtube,facebook-graph,instagram-graph,threads}/openapi.json
 * (build-meta-google.ts) and prints the operations added, removed and changed in each.
 *
 *   node --import tsx scripts/contracts/refresh-meta-google.ts [youtube|facebook-graph] [--ref <branch|tag|commit>]
 *
 * Needs internet access (api.github.com, raw.githubusercontent.com). Afterwards run the contract tests
 * (npm test -- contracts) and update the API version records (`<PLATFORM>_API` in the rules files;
 * the Graph version in src/providers/meta-shared/meta-api-version.ts) to the new version and date.
 * Threads and TikTok publish no machine-readable description: re-check their reference pages by hand.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { buildDescriptions } from './build-meta-google.js';

const root = path.resolve(import.meta.dirname, '../../contracts');
type Doc = { paths?: Record<string, Record<string, unknown>> };

async function commitOf(repository: string, ref: string): Promise<{ sha: string; date: string }> {
  const res = await fetch(`https://api.github.com/repos/${repository}/commits/${encodeURIComponent(ref)}`, {
    headers: { accept: 'application/vnd.github+json', 'user-agent': 'service-api-refresh-contracts' },
  });
  if (!res.ok) throw new Error(`${repository}@${ref}: HTTP ${res.status}`);
  const body = (await res.json()) as { sha: string; commit: { committer: { date: string } } };
  return { sha: body.sha, date: body.commit.committer.date };
}

async function raw(repository: string, sha: string, file: string): Promise<string> {
  const res = await fetch(`https://raw.githubusercontent.com/${repository}/${sha}/${file}`);
  if (!res.ok) throw new Error(`${repository}/${file}@${sha}: HTTP ${res.status}`);
  return res.text();
}

function updateSource(name: string, patch: Record<string, unknown>): void {
  const file = path.join(root, name, 'source.json');
  const source = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(file, `${JSON.stringify({ ...source, ...patch, fetchedAt: new Date().toISOString().slice(0, 10) }, null, 2)}\n`);
}

async function refreshYoutube(ref: string): Promise<void> {
  const repository = 'googleapis/google-api-go-client';
  const commit = await commitOf(repository, ref);
  const data = await raw(repository, commit.sha, 'youtube/v3/youtube-api.json');
  const analytics = await raw(repository, commit.sha, 'youtubeAnalytics/v2/youtubeAnalytics-api.json');
  fs.writeFileSync(path.join(root, 'youtube/discovery/youtube-v3.json'), data);
  fs.writeFileSync(path.join(root, 'youtube/discovery/youtubeAnalytics-v2.json'), analytics);
  updateSource('youtube', {
    repository,
    path: 'youtube/v3/youtube-api.json',
    commit: commit.sha,
    committedAt: commit.date,
    revision: (JSON.parse(data) as { revision?: string }).revision,
  });
}

async function refreshGraph(ref: string): Promise<void> {
  const repository = 'facebook/facebook-business-sdk-codegen';
  const commit = await commitOf(repository, ref);
  const source = JSON.parse(fs.readFileSync(path.join(root, 'facebook-graph/source.json'), 'utf8')) as { files: string[] };
  const specs = path.join(root, 'facebook-graph/specs');
  const used = new Set<string>();
  for (const node of source.files) {
    const text = await raw(repository, commit.sha, `api_specs/specs/${node}.json`);
    fs.writeFileSync(path.join(specs, `${node}.json`), text);
    const spec = JSON.parse(text) as { apis?: Array<{ params?: Array<{ type: string }> }>; fields?: Array<{ type: string }> };
    const types = [...(spec.apis ?? []).flatMap((a) => (a.params ?? []).map((p) => p.type)), ...(spec.fields ?? []).map((f) => f.type)];
    for (const t of types) used.add(t.replace(/^list<(.+)>$/, '$1'));
  }
  const enums = JSON.parse(await raw(repository, commit.sha, 'api_specs/specs/enum_types.json')) as Array<{ name: string }>;
  fs.writeFileSync(
    path.join(specs, 'enum_types.json'),
    `${JSON.stringify(
      enums.filter((e) => used.has(e.name)),
      null,
      4,
    )}\n`,
  );
  const patch = { commit: commit.sha, committedAt: commit.date };
  updateSource('facebook-graph', patch);
  updateSource('instagram-graph', patch);
}

function operations(doc: Doc): Map<string, string> {
  const out = new Map<string, string>();
  for (const [p, item] of Object.entries(doc.paths ?? {}))
    for (const [m, op] of Object.entries(item))
      if (m !== 'servers') out.set(`${m.toUpperCase()} ${p}`, createHash('sha1').update(JSON.stringify(op)).digest('hex'));
  return out;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const refAt = args.indexOf('--ref');
  const ref = refAt >= 0 ? (args[refAt + 1] ?? 'HEAD') : 'HEAD';
  const only = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--ref');
  const before = Object.fromEntries(
    ['youtube', 'facebook-graph', 'instagram-graph', 'threads'].map((n) => [
      n,
      operations(JSON.parse(fs.readFileSync(path.join(root, n, 'openapi.json'), 'utf8')) as Doc),
    ]),
  );
  if (!only || only === 'youtube') await refreshYoutube(ref);
  if (!only || only === 'facebook-graph') await refreshGraph(ref);
  for (const [name, doc] of Object.entries(buildDescriptions())) {
    fs.writeFileSync(path.join(root, name, 'openapi.json'), `${JSON.stringify(doc, null, 2)}\n`);
    const after = operations(doc as Doc);
    const was = before[name] ?? new Map<string, string>();
    const added = [...after.keys()].filter((k) => !was.has(k));
    const removed = [...was.keys()].filter((k) => !after.has(k));
    const changed = [...after.keys()].filter((k) => was.has(k) && was.get(k) !== after.get(k));
    console.log(`${name}: ${added.length} added, ${removed.length} removed, ${changed.length} changed`);
    for (const [label, list] of [
      ['+', added],
      ['-', removed],
      ['~', changed],
    ] as const)
      for (const op of list) console.log(`  ${label} ${op}`);
  }
}

await main();
