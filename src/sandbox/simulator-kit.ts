/**
 * Shared machinery for the platform simulators: a failure-injection queue and a record of what each
 * simulator received. Each platform-family simulator is a Fastify plugin built on this kit, so it can run
 * standalone on a loopback port (tests) or be mounted under /sandbox/<family> in sandbox mode.
 *
 * Failure switches (consumed in order, each optionally limited to routes whose name matches):
 * - expired_token: answer the platform's own "token expired/invalid" error
 * - rate_limit:    answer the platform's 429 (or its documented rate-limit error) with retry-after
 * - server_error:  answer 5xx
 * - timeout:       hold the request without answering for `delayMs` (default 30 s)
 * - lost_response: perform the operation (the post exists) and then destroy the socket without answering
 */
export type FailureKind = 'expired_token' | 'rate_limit' | 'server_error' | 'timeout' | 'lost_response';

export interface FailureRule {
  kind: FailureKind;
  /** operation name (e.g. "publish", "token", "media_upload"); all operations when absent */
  operation?: string;
  /** how many requests this rule applies to (default 1) */
  times?: number;
  retryAfterSeconds?: number;
  delayMs?: number;
}

export class FailureQueue {
  private rules: Array<FailureRule & { remaining: number }> = [];

  inject(rule: FailureRule): void {
    this.rules.push({ ...rule, remaining: rule.times ?? 1 });
  }

  clear(): void {
    this.rules = [];
  }

  /** Takes the next failure that applies to this operation, or null. */
  take(operation: string): FailureRule | null {
    const idx = this.rules.findIndex((r) => r.remaining > 0 && (!r.operation || r.operation === operation));
    if (idx < 0) return null;
    const rule = this.rules[idx]!;
    rule.remaining -= 1;
    if (rule.remaining <= 0) this.rules.splice(idx, 1);
    return rule;
  }
}

/** What a simulator received, so tests can count posts exactly (nothing published twice). */
export interface ReceivedPost {
  platform: string;
  accountId: string;
  postId: string;
  text: string;
  mediaCount: number;
  at: number;
}

export class SimulatorLedger {
  readonly posts: ReceivedPost[] = [];
  readonly comments: Array<{ postId: string; commentId: string; text: string; at: number }> = [];
  readonly requests: Array<{ operation: string; method: string; url: string; at: number }> = [];

  record(operation: string, method: string, url: string): void {
    this.requests.push({ operation, method, url, at: Date.now() });
    if (this.requests.length > 50_000) this.requests.splice(0, 10_000);
  }

  count(operation: string): number {
    return this.requests.filter((r) => r.operation === operation).length;
  }
}
