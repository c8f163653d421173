/**
 * The platforms' own API descriptions, vendored under `contracts/<name>/` at the repository root (they ship
 * with the service: sandbox mode's simulators load them at run time):
 *
 *   openapi.json      the description exactly as published (OpenAPI 3.x), or our conversion of the
 *                     platform's machine-readable description into OpenAPI 3 (see its source.json)
 *   source.json       where it comes from: repository, path, commit, date fetched (scripts/refresh-contracts.ts)
 *   corrections.json  the description's faults, corrected in one place: each correction names its reason
 *                     and a JSON Patch (RFC 6902) applied at load; never a loosening of what we send
 *   LICENSE           the licence the description is published under
 *
 * Files are read once per process, when a contract is first asked for.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastJsonPatch, { type Operation } from 'fast-json-patch';

export interface ContractSource {
  /** GitHub owner/name the description is published in */
  repository: string;
  /** path of the file in that repository */
  path: string;
  /** the commit it was taken from */
  commit: string;
  /** date of that commit (ISO 8601): the date of the description we check against */
  committedAt: string;
  /** when it was fetched (ISO 8601) */
  fetchedAt: string;
  /** set when openapi.json is our conversion of another format (e.g. "google-discovery", "meta-codegen", "hand-written") */
  convertedFrom?: string;
  /** the official reference pages a hand-written or converted description was checked against */
  references?: string[];
}

export interface ContractCorrection {
  /** why the published description is wrong here (with the evidence: a reference page, the live API's behaviour) */
  reason: string;
  /** the official page that settles it, when there is one */
  reference?: string;
  /** the change, as RFC 6902 operations on openapi.json */
  patch: Operation[];
}

export interface ContractFiles {
  name: string;
  dir: string;
  /** the description with its corrections applied */
  document: Record<string, unknown>;
  source: ContractSource;
  corrections: ContractCorrection[];
}

/** The `contracts/` folder: found by walking up from this file (works from src/ and from the dist/ bundle). */
export function contractsRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'contracts');
    if (fs.existsSync(path.join(candidate, 'README.md'))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('contracts/ folder not found above src/platform/contracts');
    dir = parent;
  }
}

function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}

/** Applies the corrections in order; a correction that no longer applies (the description changed) throws. */
export function applyCorrections(name: string, document: Record<string, unknown>, corrections: ContractCorrection[]) {
  let doc = document;
  corrections.forEach((c, i) => {
    try {
      doc = fastJsonPatch.applyPatch(doc, c.patch, true, true).newDocument;
    } catch (err) {
      throw new Error(`contracts/${name}/corrections.json #${i} (${c.reason.slice(0, 80)}) no longer applies: ${(err as Error).message}`);
    }
  });
  return doc;
}

/**
 * OpenAPI 3.0 writes "may be null" as `nullable: true`, which JSON Schema validators only honour beside a
 * `type`; descriptions also put it beside `$ref`, `allOf` or `anyOf` (where OpenAPI 3.0.3 says it has no
 * effect, and ajv refuses to compile it). Such a schema is rewritten to what its authors meant, the
 * schema or null (`anyOf: [schema, {type: 'null'}]`), everywhere; the published file stays as it is.
 */
function normalizeNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalizeNullable);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = normalizeNullable(v);
  if (out.nullable === true && !('type' in out)) {
    const { nullable: _nullable, description, readOnly, writeOnly, example, ...schema } = out;
    const wrapped: Record<string, unknown> = { anyOf: [schema, { type: 'null' }] };
    for (const [k, v] of Object.entries({ description, readOnly, writeOnly, example })) if (v !== undefined) wrapped[k] = v;
    return wrapped;
  }
  return out;
}

export function readContractFiles(name: string): ContractFiles {
  const dir = path.join(contractsRoot(), name);
  const document = readJson<Record<string, unknown>>(path.join(dir, 'openapi.json'));
  const source = readJson<ContractSource>(path.join(dir, 'source.json'));
  const correctionsFile = path.join(dir, 'corrections.json');
  const corrections = fs.existsSync(correctionsFile) ? readJson<{ corrections: ContractCorrection[] }>(correctionsFile).corrections : [];
  const corrected = applyCorrections(name, document, corrections);
  return { name, dir, document: normalizeNullable(corrected) as Record<string, unknown>, source, corrections };
}
