/**
 * The password policy (NIST SP 800-63B): length 8 to 256 bytes, no composition rules, no common or
 * breached password; applied where passwords are set (bootstrap, members create).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IdentityService } from '../../src/modules/identity/identity.service.js';
import { AppError } from '../../src/platform/errors.js';
import { passwordProblem } from '../../src/platform/secrets/password-policy.js';
import { createTestContext, type TestContext } from '../support/harness.js';

describe('password policy', () => {
  it('accepts long, plain passphrases without composition rules (the README and test passwords too)', async () => {
    for (const ok of [
      'correct horse',
      'correct horse battery',
      'tangerine ladder',
      'x'.repeat(7) + 'y',
      'a'.repeat(64),
      'mot de passe très long, avec des accents',
      'é'.repeat(128), // 256 bytes of UTF-8
    ]) {
      assert.equal(await passwordProblem(ok), null, ok);
    }
  });

  it('refuses short, overlong and common or breached passwords, whatever their case', async () => {
    const cases: Array<[string, RegExp]> = [
      ['', /at least 8 characters/],
      ['short', /at least 8 characters/],
      ['😀😀😀😀😀😀😀', /at least 8 characters/], // seven characters (code points), 28 bytes
      ['a'.repeat(257), /at most 256 bytes/],
      ['é'.repeat(129), /at most 256 bytes/],
      ['password', /most common or breached/],
      ['PassWord', /most common or breached/],
      ['12345678', /most common or breached/],
      ['qwertyuiop', /most common or breached/],
      ['iloveyou', /most common or breached/],
      ['trustno1', /most common or breached/],
      ['1qaz2wsx', /most common or breached/],
    ];
    for (const [pw, why] of cases) assert.match((await passwordProblem(pw)) ?? 'accepted', why, pw);
  });

  describe('where passwords are set', () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext();
    });
    after(() => ctx.close());

    it('bootstrap and members create refuse with password_policy_violation and create nothing', async () => {
      const identity = new IdentityService(ctx.database.db);
      const refusal = async (run: () => Promise<unknown>) => {
        try {
          await run();
        } catch (err) {
          return err as AppError;
        }
        assert.fail('accepted');
      };
      const boot = await refusal(() =>
        identity.bootstrap({ organization: 'Weak', email: 'weak@example.test', password: 'password' }, new Date()),
      );
      assert.ok(boot instanceof AppError);
      assert.equal(boot.code, 'password_policy_violation');
      assert.equal(boot.status, 400);
      assert.match(boot.message, /--password is one of the most common/);
      const users = await ctx.database.db.selectFrom('users').select('id').where('email', '=', 'weak@example.test').execute();
      assert.equal(users.length, 0);

      const made = await identity.bootstrap(
        { organization: 'Strong', email: 'strong@example.test', password: 'correct horse' },
        new Date(),
      );
      const member = await refusal(() =>
        identity.createUser(
          { organizationId: made.organizationId, email: 'm@example.test', password: 'Password1', role: 'member' },
          new Date(),
        ),
      );
      assert.equal(member?.code, 'password_policy_violation');
      const created = await identity.createUser(
        { organizationId: made.organizationId, email: 'm@example.test', password: 'a river of quiet stones', role: 'member' },
        new Date(),
      );
      assert.equal(created.email, 'm@example.test');
    });
  });
});
