/**
 * Helpers of the contract tests (test/contracts/<platform>.contract.test.ts): a simulator's guard
 * (src/sandbox/contract-guard.ts) records each request it received with the description's verdict, and,
 * with `ledger.checkAnswers` on, the verdict on its answer; these helpers read that record.
 */
import assert from 'node:assert/strict';
import { type ContractRequest, type ContractViolation, describeViolations, loadContract } from '../../src/platform/contracts/contracts.js';
import type { ContractCheckRecord, SimulatorLedger } from '../../src/sandbox/simulator-kit.js';

/** Every violation of the requests and answers a ledger recorded since `from` (an index into contractChecks). */
export function violationsOf(ledger: SimulatorLedger, from = 0): ContractViolation[] {
  return ledger.contractChecks.slice(from).flatMap((c) => [...c.violations, ...(c.answer?.violations ?? [])]);
}

/**
 * Runs `step` (one adapter operation) and asserts that each request it sent was described and valid, that
 * each answer matched the description's response schemas, and that it called the operations named (at least).
 * Returns the step's result and the checks it produced.
 */
export async function underContract<T>(
  ledger: SimulatorLedger,
  name: string,
  step: () => Promise<T>,
  expectOperations: readonly string[] = [],
): Promise<{ result: T; checks: ContractCheckRecord[] }> {
  ledger.checkAnswers = true;
  const from = ledger.contractChecks.length;
  let result: T;
  try {
    result = await step();
  } catch (err) {
    const violations = violationsOf(ledger, from);
    if (violations.length > 0) assert.fail(`${name}: ${describeViolations(violations)}\n(${(err as Error).message})`);
    throw err;
  }
  const checks = ledger.contractChecks.slice(from);
  const violations = violationsOf(ledger, from);
  assert.equal(violations.length, 0, `${name}:\n${describeViolations(violations)}`);
  const called = new Set(checks.map((c) => c.operationId));
  for (const op of expectOperations) assert.ok(called.has(op), `${name} did not call ${op} (called: ${[...called].join(', ')})`);
  for (const c of checks) assert.ok(c.answer, `${name}: ${c.operation} was not answered`);
  return { result, checks };
}

/** The description's verdict on one request (for tests proving a request shape is rejected). */
export async function verdictOf(contract: string, request: ContractRequest) {
  return (await loadContract(contract)).checkRequest(request);
}
