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
