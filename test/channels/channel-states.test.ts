/** The channel state table: every allowed transition succeeds through setChannelState, others are refused. */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setChannelState } from "../../src/modules/channels/channel-context.js";
import {
	CHANNEL_ACCOUNT_STATES,
	CHANNEL_TRANSITIONS,
	canTransition,
} from "../../src/modules/channels/channel-states.js";
import { channelsRepository } from "../../src/modules/channels/channels.repository.js";
import { AppError } from "../../src/platform/errors.js";
import { createTestContext, type TestContext } from "../support/harness.js";

describe("channel account state machine", () => {
	let ctx: TestContext;
	let organizationId: string;
	before(async () => {
		ctx = await createTestContext();
		organizationId = (await ctx.createOrganization()).organizationId;
	});
	after(() => ctx.close());

	it("applies every allowed transition and refuses every other one, in the changing transaction", async () => {
		let n = 0;
		for (const from of CHANNEL_ACCOUNT_STATES) {
			for (const to of CHANNEL_ACCOUNT_STATES) {
				if (from === to) continue;
				const id = `cha_T${String(n++).padStart(25, "0")}`;
				await channelsRepository.insert(ctx.database.db, {
					id,
					organizationId,
					brandId: null,
					platform: "x",
					externalAccountId: id,
					displayName: "T",
					handle: null,
					platformAppId: null,
					state: from,
					scopes: [],
					accessTokenRef: null,
					refreshTokenRef: null,
					tokenExpiresAt: null,
					at: new Date(),
				});
				const allowed = CHANNEL_TRANSITIONS[from].includes(to);
				assert.equal(canTransition(from, to), allowed);
				try {
					await ctx.database.db
						.transaction()
						.execute((tx) =>
							setChannelState(tx, organizationId, id, to, "test"),
						);
					assert.ok(allowed, `${from} -> ${to} should be refused`);
					assert.equal(
						(await channelsRepository.get(ctx.database.db, organizationId, id))!
							.state,
						to,
					);
				} catch (err) {
					assert.ok(
						!allowed,
						`${from} -> ${to} should be allowed: ${(err as Error).message}`,
					);
					assert.ok(
						err instanceof AppError &&
							err.code === "channel_account_invalid_transition",
					);
					assert.equal(
						(await channelsRepository.get(ctx.database.db, organizationId, id))!
							.state,
						from,
						"unchanged",
					);
				}
			}
		}
		// a refused move is not a silent no-op: deleted -> expiring, for example
		assert.equal(canTransition("deleted", "expiring"), false);
		assert.equal(canTransition("connected", "connected"), true);
	});

	it("reports another organization's channel as not found", async () => {
		const other = (await ctx.createOrganization()).organizationId;
		const row = (
			await ctx.database.db
				.selectFrom("channel_accounts")
				.select("id")
				.where("organization_id", "=", organizationId)
				.executeTakeFirstOrThrow()
		).id;
		await assert.rejects(
			ctx.database.db
				.transaction()
				.execute((tx) => setChannelState(tx, other, row, "disabled", null)),
			(err: unknown) =>
				err instanceof AppError && err.code === "channel_account_not_found",
		);
	});
});
