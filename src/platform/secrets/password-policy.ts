/**
 * The password policy, after NIST SP 800-63B (5.1.1.2, memorized secrets): at least 8 characters,
 * at least 64 allowed (we allow 256 bytes of UTF-8: scrypt's cost grows with the input and nothing
 * longer is a memorized secret), no composition rules, and no password found in a list of common and
 * breached passwords. The list is the 49,000 most common passwords of the xato 10 million password
 * corpus as shipped by @zxcvbn-ts/language-common (MIT); it is loaded on first use, since passwords
 * are only set from the CLI.
 */
import { AppError } from '../errors.js';

const PASSWORD_MIN_CHARACTERS = 8;
const PASSWORD_MAX_BYTES = 256;

let common: Promise<Set<string>> | null = null;

function commonPasswords(): Promise<Set<string>> {
  common ??= import('@zxcvbn-ts/language-common').then(
    (m) => new Set((m.dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase())),
  );
  return common;
}

/** Why a password may not be set, or null when it may. */
export async function passwordProblem(password: string): Promise<string | null> {
  // NIST counts characters (code points), after Unicode normalization
  const normalized = password.normalize('NFKC');
  if ([...normalized].length < PASSWORD_MIN_CHARACTERS) return `must have at least ${PASSWORD_MIN_CHARACTERS} characters`;
  if (Buffer.byteLength(normalized, 'utf8') > PASSWORD_MAX_BYTES) return `must have at most ${PASSWORD_MAX_BYTES} bytes`;
  const list = await commonPasswords();
  if (list.has(normalized.toLowerCase()))
    return 'is one of the most common or breached passwords; choose another (a few unrelated words make a good one)';
  return null;
}

/** Throws 400 password_policy_violation naming the field when the password may not be set. */
export async function assertPasswordAllowed(password: string, field = 'password'): Promise<void> {
  const problem = await passwordProblem(password);
  if (problem) throw new AppError('password_policy_violation', { message: `${field} ${problem}.`, details: { field } });
}
