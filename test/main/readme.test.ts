import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { EnvSchema } from '../../src/config.js';

it('README documents every environment variable of the config schema (npx tsx scripts/update-readme-env.ts)', () => {
  const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
  const missing = Object.keys(EnvSchema.properties).filter((k) => !readme.includes(`| \`${k}\` |`));
  assert.deepEqual(missing, []);
  assert.match(readme.split('\n').slice(0, 12).join('\n'), /npm install && npm start[\s\S]*npm test/);
});

const REPO = path.resolve(import.meta.dirname, '../..');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const anchorsOf = (markdown: string) =>
  new Set(
    [...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\- _]/gu, '')
        .replace(/ /g, '-'),
    ),
  );

it('README and docs link only to files inside the repository, and every relative link resolves', () => {
  const files = [
    'README.md',
    ...fs
      .readdirSync(path.join(REPO, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const problems: string[] = [];
  for (const file of files) {
    const text = fs.readFileSync(path.join(REPO, file), 'utf8');
    const dir = path.dirname(path.join(REPO, file));
    const inside = (p: string) => p === REPO || p.startsWith(REPO + path.sep);
    for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^(https?:|mailto:)/.test(target)) continue;
      if (/^(file:|\/)/.test(target)) {
        problems.push(`${file}: absolute link ${target}`);
        continue;
      }
      const [rel, anchor] = target.split('#') as [string, string | undefined];
      const resolved = rel === '' ? path.join(REPO, file) : path.resolve(dir, decodeURIComponent(rel));
      if (!inside(resolved)) problems.push(`${file}: ${target} is outside the repository`);
      else if (!fs.existsSync(resolved)) problems.push(`${file}: ${target} does not exist`);
      else if (anchor && resolved.endsWith('.md') && !anchorsOf(fs.readFileSync(resolved, 'utf8')).has(anchor))
        problems.push(`${file}: ${target} names no heading`);
    }
    // paths written out (not as links) must not lead outside the repository either
    for (const m of text.matchAll(/(?<![\w.])\.\.\/[\w./-]+/g)) {
      const resolved = path.resolve(dir, m[0]);
      if (!inside(resolved)) problems.push(`${file}: ${m[0]} is outside the repository`);
      else if (!fs.existsSync(resolved)) problems.push(`${file}: ${m[0]} does not exist`);
    }
  }
  assert.deepEqual(problems, []);
});
