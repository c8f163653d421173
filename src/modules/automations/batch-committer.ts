/**
 * The port product_rotation commits publish batches through. The batches area implements it; until
 * it is wired, product_rotation runs fail with `batches_unavailable` instead of pretending.
 */
interface BatchCommitItem {
  productId: string;
  text: string;
}

export interface BatchCommitter {
  commit(input: {
    organizationId: string;
    brandId: string;
    profileId?: string;
    items: BatchCommitItem[];
    policy?: Record<string, unknown>;
    dryRun: boolean;
    /** stable per run, so a retried run commits nothing twice */
    idempotencyKey: string;
  }): Promise<{ publishBatchId: string | null; publishJobIds: string[] }>;
}
