/** The automation run state machine: the one table of allowed moves. Terminal states have no exits. */
import type { RunStatus } from './automations.schemas.js';

const RUN_TRANSITIONS: Record<RunStatus, readonly RunStatus[]> = {
  queued: ['running', 'cancelled'],
  running: ['succeeded', 'failed', 'cancelled'],
  succeeded: [],
  failed: [],
  cancelled: [],
};

export function canMove(from: RunStatus, to: RunStatus): boolean {
  return RUN_TRANSITIONS[from].includes(to);
}

export const isTerminal = (s: RunStatus) => RUN_TRANSITIONS[s].length === 0;
