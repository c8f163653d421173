/** Regenerates the configuration table in README.md from the environment schema. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const table = execFileSync(process.execPath, ['bin/service-api.mjs', 'config', '--markdown'], { encoding: 'utf8' });
const readme = fs.readFileSync('README.md', 'utf8');
const next = readme.replace(
  /<!-- env-table:start -->[\s\S]*<!-- env-table:end -->/,
  `<!-- env-table:start -->\n${table}<!-- env-table:end -->`,
);
fs.writeFileSync('README.md', next);
