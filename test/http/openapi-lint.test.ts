import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/harness.js';

/** The Redocly linter with its recommended ruleset; warnings are printed, errors fail. */
describe('OpenAPI lint (Redocly recommended)', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx?.close());

  it('finds no error in the served document', async () => {
    const source = (await ctx.app.inject({ url: '/v1/openapi.json' })).body;
    const { createConfig, lintFromString } = await import('@redocly/openapi-core');
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'http://localhost/v1/openapi.json', config });
    const line = (p: (typeof problems)[number]) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`;
    for (const p of problems.filter((p) => p.severity !== 'error')) console.log(line(p));
    const errors = problems.filter((p) => p.severity === 'error').map(line);
    assert.deepEqual(errors, []);
    // every tag an operation uses is declared with a description
    assert.equal(problems.filter((p) => p.ruleId === 'tag-description' || p.ruleId === 'operation-tag-defined').length, 0);
  });
});
