/**
 * Remote media import budgets (specification, Limits): requests per client address and per principal,
 * bytes per organization, global and per-organization concurrency with an expiring lease. All of them
 * live in the shared counter store, so with SERVICE_REMOTE_MEDIA_IMPORT_BUDGET_STORE=redis every
 * process draws from the same budget, and a crashed import frees its slot when its lease ends.
 *
 * Request and byte budgets use fixed windows aligned to the clock (key per window), which makes
 * Retry-After exact: the seconds until the window ends.
 */
import type { CounterStore } from '../../platform/counters/index.js';

export const IMPORT_BUDGET_DEFAULTS = {
  perAddress: { limit: 30, windowSeconds: 60 },
  perPrincipal: { limit: 20, windowSeconds: 3600 },
  bytesPerOrganization: { limit: 268_435_456, windowSeconds: 3600 },
  concurrencyGlobal: 8,
  concurrencyPerOrganization: 2,
  leaseSeconds: 75,
} as const;

export type ImportBudgets = {
  perAddress: { limit: number; windowSeconds: number };
  perPrincipal: { limit: number; windowSeconds: number };
  bytesPerOrganization: { limit: number; windowSeconds: number };
  concurrencyGlobal: number;
  concurrencyPerOrganization: number;
  leaseSeconds: number;
};

export type BudgetName = 'client_address' | 'principal' | 'organization_bytes' | 'concurrency_global' | 'concurrency_organization';

/** Seconds a refused caller should wait before a concurrency slot is worth retrying. */
const CONCURRENCY_RETRY_SECONDS = 5;

export class ImportBudgetExceeded extends Error {
  override readonly name = 'ImportBudgetExceeded';
  constructor(
    readonly budget: BudgetName,
    readonly retryAfterSeconds: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ImportCaller {
  clientAddress: string;
  /** stable id of the principal (kind + subject) */
  principalKey: string;
  organizationId: string;
}

/** What an admitted import holds until it ends. */
export interface ImportPermit {
  /** bytes reserved in the organization budget; `settle` returns the unused part */
  reservedBytes: number;
  settle(actualBytes: number): Promise<void>;
}

export class ImportBudget {
  constructor(
    private readonly store: () => CounterStore,
    private readonly now: () => number,
    readonly budgets: ImportBudgets = IMPORT_BUDGET_DEFAULTS,
  ) {}

  private window(windowSeconds: number) {
    const windowMs = windowSeconds * 1000;
    const now = this.now();
    const start = Math.floor(now / windowMs) * windowMs;
    return { start, windowMs, retryAfter: Math.max(1, Math.ceil((start + windowMs - now) / 1000)) };
  }

  private keys(caller: ImportCaller) {
    const b = this.budgets;
    const address = this.window(b.perAddress.windowSeconds);
    const principal = this.window(b.perPrincipal.windowSeconds);
    const bytes = this.window(b.bytesPerOrganization.windowSeconds);
    return {
      address: { key: `media-import:addr:${caller.clientAddress}:${address.start}`, ...address },
      principal: { key: `media-import:principal:${caller.principalKey}:${principal.start}`, ...principal },
      bytes: { key: `media-import:bytes:${caller.organizationId}:${bytes.start}`, ...bytes },
      global: 'media-import:slots:global',
      organization: `media-import:slots:org:${caller.organizationId}`,
    };
  }

  /**
   * Dry run: reports the first budget that would refuse `bytes`, consuming nothing; null when the
   * import would be admitted now.
   */
  async preview(caller: ImportCaller, bytes: number): Promise<ImportBudgetExceeded | null> {
    const store = this.store();
    const b = this.budgets;
    const k = this.keys(caller);
    if ((await store.get(k.address.key)) + 1 > b.perAddress.limit) return this.requestRefusal('client_address', k.address.retryAfter);
    if ((await store.get(k.principal.key)) + 1 > b.perPrincipal.limit) return this.requestRefusal('principal', k.principal.retryAfter);
    if ((await store.slotCount(k.global)) >= b.concurrencyGlobal) return this.concurrencyRefusal('concurrency_global');
    if ((await store.slotCount(k.organization)) >= b.concurrencyPerOrganization) return this.concurrencyRefusal('concurrency_organization');
    if ((await store.get(k.bytes.key)) + bytes > b.bytesPerOrganization.limit) return this.bytesRefusal(k.bytes.retryAfter);
    return null;
  }

  /**
   * Admits an import or throws ImportBudgetExceeded. Request budgets count every attempt; concurrency
   * slots and the byte reservation are released by `settle` (or by lease/window expiry after a crash).
   */
  async admit(caller: ImportCaller, reserveBytes: number): Promise<ImportPermit> {
    const store = this.store();
    const b = this.budgets;
    const k = this.keys(caller);
    const address = await store.consume(k.address.key, 1, b.perAddress.limit, k.address.windowMs + 1000);
    if (!address.allowed) throw this.requestRefusal('client_address', k.address.retryAfter);
    const principal = await store.consume(k.principal.key, 1, b.perPrincipal.limit, k.principal.windowMs + 1000);
    if (!principal.allowed) throw this.requestRefusal('principal', k.principal.retryAfter);
    const leaseMs = b.leaseSeconds * 1000;
    const globalSlot = await store.acquireSlot(k.global, b.concurrencyGlobal, leaseMs);
    if (!globalSlot) throw this.concurrencyRefusal('concurrency_global');
    const orgSlot = await store.acquireSlot(k.organization, b.concurrencyPerOrganization, leaseMs);
    if (!orgSlot) {
      await store.releaseSlot(k.global, globalSlot);
      throw this.concurrencyRefusal('concurrency_organization');
    }
    const bytes = await store.consume(k.bytes.key, reserveBytes, b.bytesPerOrganization.limit, k.bytes.windowMs + 1000);
    if (!bytes.allowed) {
      await store.releaseSlot(k.organization, orgSlot);
      await store.releaseSlot(k.global, globalSlot);
      throw this.bytesRefusal(k.bytes.retryAfter);
    }
    let settled = false;
    return {
      reservedBytes: reserveBytes,
      settle: async (actualBytes: number) => {
        if (settled) return;
        settled = true;
        const unused = reserveBytes - Math.min(Math.max(actualBytes, 0), reserveBytes);
        if (unused > 0) await store.increment(k.bytes.key, -unused, k.bytes.windowMs + 1000);
        await store.releaseSlot(k.organization, orgSlot);
        await store.releaseSlot(k.global, globalSlot);
      },
    };
  }

  private requestRefusal(budget: 'client_address' | 'principal', retryAfter: number): ImportBudgetExceeded {
    const { limit, windowSeconds } = budget === 'client_address' ? this.budgets.perAddress : this.budgets.perPrincipal;
    const who = budget === 'client_address' ? 'client address' : 'principal';
    return new ImportBudgetExceeded(
      budget,
      retryAfter,
      `Remote media import limit of ${limit} requests per ${windowSeconds} s per ${who} reached.`,
    );
  }

  private concurrencyRefusal(budget: 'concurrency_global' | 'concurrency_organization'): ImportBudgetExceeded {
    const max = budget === 'concurrency_global' ? this.budgets.concurrencyGlobal : this.budgets.concurrencyPerOrganization;
    const scope = budget === 'concurrency_global' ? 'in total' : 'per organization';
    return new ImportBudgetExceeded(budget, CONCURRENCY_RETRY_SECONDS, `At most ${max} remote media imports may run at once ${scope}.`);
  }

  private bytesRefusal(retryAfter: number): ImportBudgetExceeded {
    const { limit, windowSeconds } = this.budgets.bytesPerOrganization;
    return new ImportBudgetExceeded(
      'organization_bytes',
      retryAfter,
      `The organization's remote media import budget of ${limit} bytes per ${windowSeconds} s is used up.`,
    );
  }
}
