/**
 * The vendored descriptions by name (the folder under contracts/: "x", "pinterest", ...), each loaded and
 * prepared once per process on first use: a simulator pays the parse on its first request, and a process
 * that never runs a simulator or a contract check never reads them. The cache holds immutable documents.
 */
import { ApiContract } from './api-contract.js';
import { readContractFiles } from './contract-files.js';

export { ApiContract, type ContractRequest, type ContractViolation, type RequestVerdict } from './api-contract.js';

const loaded = new Map<string, Promise<ApiContract>>();

export function loadContract(name: string): Promise<ApiContract> {
  let contract = loaded.get(name);
  if (!contract) {
    contract = Promise.resolve().then(() => ApiContract.load(readContractFiles(name)));
    loaded.set(name, contract);
    contract.catch(() => loaded.delete(name));
  }
  return contract;
}

/** Formats violations one a line: "createPosts (POST /2/tweets) body.text: must be string". */
export function describeViolations(violations: ReadonlyArray<{ operation: string; field: string; message: string }>): string {
  return violations.map((v) => `${v.operation} ${v.field}: ${v.message}`).join('\n');
}
