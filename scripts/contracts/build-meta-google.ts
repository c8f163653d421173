/**
 * Writes the OpenAPI descriptions of YouTube, the Meta Graph hosts and Threads from their vendored
 * sources, at the API versions the adapters call (src/providers/meta-shared/meta-api-version.ts,
 * YOUTUBE_API_VERSION in src/providers/youtube/youtube.rules.ts):
 *
 *   contracts/youtube/openapi.json          from contracts/youtube/discovery/youtube-v3.json (Google discovery)
 *   contracts/facebook-graph/openapi.json   from contracts/facebook-graph/specs (Meta's codegen node specs)
 *   contracts/instagram-graph/openapi.json  from the same specs (Instagram API with Instagram Login)
 *   contracts/threads/openapi.json          from threads-operations.ts (hand-described from the reference pages)
 *
 * Run after refreshing a source (scripts/contracts/refresh-meta-google.ts runs it) and commit the result:
 *   node --import tsx scripts/contracts/build-meta-google.ts
 * `--check` writes nothing and fails when a committed description differs from what its source builds.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GRAPH_API_VERSION, THREADS_API_VERSION } from '../../src/providers/meta-shared/meta-api-version.js';
import { type DiscoveryDocument, discoveryToOpenApi } from './discovery-to-openapi.js';
import { facebookGraphOperations, HAND_ENUMS, instagramGraphOperations } from './graph-operations.js';
import { graphSpecsToOpenApi } from './graph-specs-to-openapi.js';
import { threadsOperations } from './threads-operations.js';

const root = path.resolve(import.meta.dirname, '../../contracts');
const specsDir = path.join(root, 'facebook-graph/specs');

function source(name: string): { commit?: string } {
  try {
    return JSON.parse(readFileSync(path.join(root, name, 'source.json'), 'utf8')) as { commit?: string };
  } catch {
    return {};
  }
}

export function buildDescriptions(): Record<string, unknown> {
  const discovery = JSON.parse(readFileSync(path.join(root, 'youtube/discovery/youtube-v3.json'), 'utf8')) as DiscoveryDocument;
  const metaCommit = source('facebook-graph').commit ?? 'unknown';
  return {
    youtube: discoveryToOpenApi(discovery),
    'facebook-graph': graphSpecsToOpenApi({
      title: 'Graph API (graph.facebook.com): Facebook Pages and Instagram with Facebook Login',
      server: 'https://graph.facebook.com',
      version: GRAPH_API_VERSION,
      specsDir,
      origin: `facebook/facebook-business-sdk-codegen api_specs/specs at ${metaCommit}`,
      operations: facebookGraphOperations(GRAPH_API_VERSION),
      enums: HAND_ENUMS,
    }),
    'instagram-graph': graphSpecsToOpenApi({
      title: 'Instagram API with Instagram Login (graph.instagram.com, api.instagram.com)',
      server: 'https://graph.instagram.com',
      version: GRAPH_API_VERSION,
      specsDir,
      origin: `facebook/facebook-business-sdk-codegen api_specs/specs at ${metaCommit}`,
      operations: instagramGraphOperations(GRAPH_API_VERSION),
      enums: HAND_ENUMS,
    }),
    threads: graphSpecsToOpenApi({
      title: 'Threads API (graph.threads.net)',
      server: 'https://graph.threads.net',
      version: THREADS_API_VERSION,
      specsDir: null,
      origin: 'the Threads reference pages (no machine-readable description is published)',
      operations: threadsOperations(THREADS_API_VERSION),
      enums: HAND_ENUMS,
    }),
  };
}

if (process.argv[1]?.endsWith('build-meta-google.ts')) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const [name, doc] of Object.entries(buildDescriptions())) {
    const file = path.join(root, name, 'openapi.json');
    const text = `${JSON.stringify(doc, null, 2)}\n`;
    if (check) {
      let current = '';
      try {
        current = readFileSync(file, 'utf8');
      } catch {}
      if (current !== text) {
        stale++;
        console.error(`contracts/${name}/openapi.json is not what its source builds`);
      }
    } else {
      writeFileSync(file, text);
      console.log(`wrote contracts/${name}/openapi.json`);
    }
  }
  if (stale) process.exit(1);
}
