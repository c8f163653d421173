/**
 * One attempt on one target: claim it (conditional move to publishing, version bump), call the
 * adapter, record the outcome. Outcomes by ProviderError category:
 * - transient, rate_limited: back to queued with exponential backoff (at least the platform's
 *   retry-after) until SERVICE_PUBLISH_MAX_ATTEMPTS, then failed (retries_exhausted)
 * - auth_expired: needs_reconnect; the channel goes to refresh_needed (refreshable token) or
 *   reconnect_required
 * - user_content, platform_rejected: failed, never retried
 * - unknown_outcome (and any unexpected error during the platform call): needs_attention, never retried
 * `processing` answers are polled with follow-up jobs until published or failed.
 */
import type { AppDeps } from "../../app-deps.js";
import type { Executor } from "../../platform/db/database.js";
import {
	type Platform,
	ProviderError,
	type ProviderErrorCategory,
	type PublishResult,
} from "../../providers/provider.js";
import {
	type ChannelContext,
	type ChannelGateway,
	ChannelUnavailableError,
} from "./channel-gateway.js";
import type { MediaAccess } from "./media-access.js";
import { PLATFORM_RULES } from "./platform-rules.js";
import type { PublishLimiter } from "./publish-policies.js";
import {
	ensurePublishQueues,
	sendCommentJob,
	sendTargetJob,
	type TargetJobData,
} from "./publish-queue.js";
import { type TargetState, TRANSITIONS } from "./publish-states.js";
import {
	publishingRepository,
	type TargetRow,
} from "./publishing.repository.js";
import type { StoredMedia, TargetError } from "./publishing.tables.js";

export interface EngineSettings {
	maxAttempts: number;
	retryBaseMs: number;
	retryMaxMs: number;
	leaseMs: number;
	pollMaxMs: number;
}

type Outcome =
	| { kind: "published"; providerPostId: string; url: string | null }
	| {
			kind: "processing";
			pollToken: string;
			pollAfterMs: number;
			providerPostId: string | null;
	  }
	| { kind: "retry"; error: TargetError; delayMs: number }
	| {
			kind: "final";
			state: Extract<
				TargetState,
				"failed" | "needs_reconnect" | "needs_attention"
			>;
			error: TargetError;
			channelState?: "refresh_needed" | "reconnect_required";
	  };

export function targetError(
	code: unknown,
	category: string,
	message: unknown,
	providerResponse: unknown,
	at: Date,
): TargetError {
	// adapters may hand over numeric platform codes; the stored error is always strings
	return {
		code: String(code),
		category,
		message: String(message ?? ""),
		providerResponse: providerResponse ?? null,
		at: at.toISOString(),
	};
}

export class PublishEngine {
	constructor(
		private readonly deps: AppDeps,
		private readonly channels: ChannelGateway,
		private readonly media: MediaAccess,
		private readonly limiter: PublishLimiter,
		readonly settings: EngineSettings,
	) {}

	private get db() {
		return this.deps.database.db;
	}
	private now() {
		return this.deps.clock.now();
	}

	/** Handles one worker job; answers what happened (for logs and tests). */
	async handle(data: TargetJobData): Promise<string> {
		await ensurePublishQueues(this.deps.jobs);
		const row = await publishingRepository.getTarget(this.db, data.targetId);
		if (
			!row ||
			row.organization_id !== data.organizationId ||
			row.version !== data.version
		)
			return "stale";
		const wanted: TargetState[] =
			data.step === "publish" ? ["scheduled", "queued"] : ["processing"];
		if (!wanted.includes(row.state as TargetState)) return "stale";
		const policy =
			PLATFORM_RULES[row.platform as Platform]?.capability.rateLimitPolicy ??
			"standard";
		const slot = await this.limiter.acquire(
			row.platform,
			row.channel_account_id,
			policy,
			data.step === "publish",
		);
		if (!slot.ok) {
			await this.defer(row, slot.retryInMs, data.step);
			return "deferred";
		}
		try {
			return data.step === "publish"
				? await this.publish(row)
				: await this.poll(row);
		} finally {
			await slot.release().catch(() => undefined);
		}
	}

	/** No slot free: the same version is sent again a little later (not an attempt). */
	private async defer(
		row: TargetRow,
		delayMs: number,
		step: TargetJobData["step"],
	) {
		const at = new Date(
			this.now().getTime() + delayMs + Math.floor(Math.random() * 250),
		);
		await this.db.transaction().execute(async (tx) => {
			const res = await tx
				.updateTable("publish_targets")
				.set({ next_attempt_at: at })
				.where("id", "=", row.id)
				.where("version", "=", row.version)
				.where("state", "=", row.state)
				.executeTakeFirst();
			if (Number(res.numUpdatedRows) > 0)
				await sendTargetJob(
					this.deps.jobs,
					tx,
					{
						targetId: row.id,
						organizationId: row.organization_id,
						version: row.version,
						step,
					},
					at,
				);
		});
	}

	private async publish(row: TargetRow): Promise<string> {
		const now = this.now();
		const claimed = await this.db.transaction().execute(async (tx) => {
			const c = await tx
				.updateTable("publish_targets")
				.set((eb) => ({
					state: "publishing",
					version: eb("version", "+", 1),
					attempts: eb("attempts", "+", 1),
					lease_until: new Date(now.getTime() + this.settings.leaseMs),
					updated_at: now,
				}))
				.where("id", "=", row.id)
				.where("version", "=", row.version)
				.where("state", "in", [...TRANSITIONS.claim.from])
				.returningAll()
				.executeTakeFirst();
			if (c) await publishingRepository.refreshJobStatus(tx, c.job_id, now);
			return c ?? null;
		});
		if (!claimed) return "stale";
		let channel: ChannelContext;
		try {
			channel = await this.channels.resolve(
				claimed.organization_id,
				claimed.channel_account_id,
			);
		} catch (err) {
			return this.record(claimed, this.channelProblem(err));
		}
		let outcome: Outcome;
		try {
			const job = await this.db
				.selectFrom("publish_jobs")
				.select("media")
				.where("id", "=", claimed.job_id)
				.executeTakeFirstOrThrow();
			const media = await this.media.forPublish(
				claimed.organization_id,
				job.media as unknown as StoredMedia[],
				this.db,
			);
			try {
				const result = await channel.provider.publish(channel.ctx, {
					text: claimed.text,
					media,
					settings: claimed.settings as Record<string, unknown>,
					idempotencyKey: claimed.id,
				});
				outcome = this.fromResult(result);
			} catch (err) {
				outcome = this.fromError(err, claimed.attempts, true);
			}
		} catch (err) {
			// before the platform was called (media gone): nothing reached the platform
			outcome = {
				kind: "final",
				state: "failed",
				error: targetError(
					"media_unavailable",
					"user_content",
					(err as Error).message,
					null,
					this.now(),
				),
			};
		}
		return this.record(claimed, outcome);
	}

	private async poll(row: TargetRow): Promise<string> {
		if (row.lease_until && row.lease_until.getTime() < this.now().getTime()) {
			return this.record(row, {
				kind: "final",
				state: "needs_attention",
				error: targetError(
					"processing_timeout",
					"unknown_outcome",
					"The platform was still processing the post when the polling window ended.",
					null,
					this.now(),
				),
			});
		}
		let channel: ChannelContext;
		try {
			channel = await this.channels.resolve(
				row.organization_id,
				row.channel_account_id,
			);
		} catch (err) {
			return this.record(row, this.channelProblem(err));
		}
		let outcome: Outcome;
		try {
			outcome = this.fromResult(
				await channel.provider.pollPublish(channel.ctx, row.poll_token ?? ""),
			);
		} catch (err) {
			outcome = this.fromError(err, 0, false);
			// polling only reads: a transient failure is polled again rather than counted as an attempt
			if (outcome.kind === "retry")
				outcome = {
					kind: "processing",
					pollToken: row.poll_token ?? "",
					pollAfterMs: outcome.delayMs,
					providerPostId: row.provider_post_id,
				};
		}
		return this.record(row, outcome);
	}

	private channelProblem(err: unknown): Outcome {
		const at = this.now();
		if (err instanceof ChannelUnavailableError) {
			return {
				kind: "final",
				state: "needs_reconnect",
				error: targetError(
					"channel_unavailable",
					"auth_expired",
					err.message,
					null,
					at,
				),
			};
		}
		return this.fromError(err, Number.MAX_SAFE_INTEGER, false);
	}

	private fromResult(r: PublishResult): Outcome {
		if (r.status === "published")
			return {
				kind: "published",
				providerPostId: r.providerPostId,
				url: r.url,
			};
		return {
			kind: "processing",
			pollToken: r.pollToken,
			pollAfterMs: r.pollAfterMs,
			providerPostId: r.providerPostId ?? null,
		};
	}

	private backoffMs(
		attempts: number,
		retryAfterSeconds: number | null,
	): number {
		const exp = Math.min(
			this.settings.retryMaxMs,
			this.settings.retryBaseMs * 2 ** Math.max(0, attempts - 1),
		);
		const jittered = exp * (0.8 + Math.random() * 0.4);
		return Math.max(jittered, (retryAfterSeconds ?? 0) * 1000);
	}

	/** Maps a failure of the platform call to an outcome. `duringCall`: the request may have been sent. */
	private fromError(
		err: unknown,
		attempts: number,
		duringCall: boolean,
	): Outcome {
		const at = this.now();
		if (!(err instanceof ProviderError)) {
			const category: ProviderErrorCategory = duringCall
				? "unknown_outcome"
				: "transient";
			const e = targetError(
				"publish_error",
				category,
				(err as Error)?.message ?? String(err),
				null,
				at,
			);
			return duringCall
				? { kind: "final", state: "needs_attention", error: e }
				: { kind: "final", state: "failed", error: e };
		}
		const e = targetError(
			err.providerCode ?? err.category,
			err.category,
			err.message,
			err.providerResponse,
			at,
		);
		switch (err.category) {
			case "transient":
			case "rate_limited":
				if (attempts >= this.settings.maxAttempts) {
					return {
						kind: "final",
						state: "failed",
						error: {
							...e,
							code: "retries_exhausted",
							message: `${err.message} (gave up after ${attempts} attempts)`,
						},
					};
				}
				return {
					kind: "retry",
					error: e,
					delayMs: this.backoffMs(attempts, err.retryAfterSeconds),
				};
			case "auth_expired": {
				const refreshable = this.channels.registry.get(err.platform).oauth
					.supportsRefresh;
				return {
					kind: "final",
					state: "needs_reconnect",
					error: e,
					channelState: refreshable ? "refresh_needed" : "reconnect_required",
				};
			}
			case "unknown_outcome":
				return { kind: "final", state: "needs_attention", error: e };
			default:
				return { kind: "final", state: "failed", error: e };
		}
	}

	/** Writes an outcome if the target is still the version this attempt claimed. */
	private async record(row: TargetRow, o: Outcome): Promise<string> {
		const now = this.now();
		const from = row.state === "processing" ? ["processing"] : ["publishing"];
		return this.db.transaction().execute(async (tx) => {
			const base = tx
				.updateTable("publish_targets")
				.where("id", "=", row.id)
				.where("version", "=", row.version)
				.where("state", "in", from);
			let updated: TargetRow | undefined;
			if (o.kind === "published") {
				updated = await base
					.set({
						state: "published",
						provider_post_id: o.providerPostId,
						provider_url: o.url,
						published_at: now,
						lease_until: null,
						next_attempt_at: null,
						poll_token: null,
						state_reason: null,
						first_comment_state: row.first_comment ? "pending" : null,
						updated_at: now,
					})
					.returningAll()
					.executeTakeFirst();
				const fc = row.first_comment as { delayMs: number } | null;
				if (updated && fc && row.first_comment_state === "waiting") {
					await sendCommentJob(
						this.deps.jobs,
						tx,
						{ targetId: row.id, organizationId: row.organization_id },
						new Date(now.getTime() + fc.delayMs),
					);
				}
			} else if (o.kind === "processing") {
				const next = new Date(now.getTime() + Math.max(50, o.pollAfterMs));
				updated = await base
					.set({
						state: "processing",
						poll_token: o.pollToken,
						provider_post_id: o.providerPostId ?? row.provider_post_id,
						next_attempt_at: next,
						// while processing, the lease is the polling window
						lease_until:
							row.state === "processing"
								? row.lease_until
								: new Date(now.getTime() + this.settings.pollMaxMs),
						updated_at: now,
					})
					.returningAll()
					.executeTakeFirst();
				if (updated)
					await sendTargetJob(
						this.deps.jobs,
						tx,
						{
							targetId: row.id,
							organizationId: row.organization_id,
							version: updated.version,
							step: "poll",
						},
						next,
					);
			} else if (o.kind === "retry") {
				const next = new Date(now.getTime() + o.delayMs);
				updated = await base
					.set({
						state: "queued",
						last_error: JSON.stringify(o.error),
						next_attempt_at: next,
						lease_until: null,
						state_reason: `retry ${row.attempts + 1} after ${o.error.category}`,
						updated_at: now,
					})
					.returningAll()
					.executeTakeFirst();
				if (updated)
					await sendTargetJob(
						this.deps.jobs,
						tx,
						{
							targetId: row.id,
							organizationId: row.organization_id,
							version: updated.version,
							step: "publish",
						},
						next,
					);
			} else {
				updated = await base
					.set({
						state: o.state,
						last_error: JSON.stringify(o.error),
						lease_until: null,
						next_attempt_at: null,
						state_reason: o.error.message.slice(0, 500),
						first_comment_state: row.first_comment ? "cancelled" : null,
						updated_at: now,
					})
					.returningAll()
					.executeTakeFirst();
				if (updated && o.channelState) {
					await this.channels.markTokenProblem(
						tx,
						row.organization_id,
						row.channel_account_id,
						o.channelState,
						`platform refused the token while publishing target ${row.id}`,
						now,
					);
				}
			}
			if (!updated) return "lost_race";
			await publishingRepository.refreshJobStatus(tx, row.job_id, now);
			return updated.state;
		});
	}
}

export type { Executor };
