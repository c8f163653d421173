/** POST /v1/providers/tools/{toolName} against a standalone X simulator, with its error mapping. */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
	type RunningXSimulator,
	startXSimulator,
} from "../../src/sandbox/simulators/x.simulator.js";
import { createTestContext, type TestContext } from "../support/harness.js";

type Org = Awaited<ReturnType<TestContext["createOrganization"]>>;

describe("provider tools route", () => {
	let ctx: TestContext;
	let sim: RunningXSimulator;
	let a: Org;
	let b: Org;
	let channelId: string;
	let accessToken: string;

	before(async () => {
		sim = await startXSimulator({ clientId: "cid", clientSecret: "csecret" });
		ctx = await createTestContext({
			env: {
				SERVICE_X_CLIENT_ID: "cid",
				SERVICE_X_CLIENT_SECRET: "csecret",
				SERVICE_X_API_BASE_URL: sim.baseUrls.apiBaseUrl,
				SERVICE_X_AUTH_BASE_URL: sim.baseUrls.authBaseUrl,
				SERVICE_X_UPLOAD_BASE_URL: sim.baseUrls.uploadBaseUrl,
			},
		});
		a = await ctx.createOrganization({ name: "A" });
		b = await ctx.createOrganization({ name: "B" });
		const res = await ctx.app.inject({
			method: "POST",
			url: "/v1/channel-accounts/connect-url",
			headers: a.auth,
			payload: { platform: "x" },
		});
		const consent = await fetch(res.json().authorizationUrl, {
			redirect: "manual",
		});
		const cb = new URL(consent.headers.get("location")!);
		const done = await ctx.app.inject({
			method: "GET",
			url: `/v1/channel-accounts/oauth/callback/x${cb.search}`,
		});
		channelId = done.json().channelAccountId;
		accessToken = [...sim.state.tokens.keys()].at(-1)!;
	});
	after(async () => {
		await ctx.close();
		await sim.close();
	});

	const run = (tool: string, body: Record<string, unknown>, org: Org = a) =>
		ctx.app.inject({
			method: "POST",
			url: `/v1/providers/tools/${tool}`,
			headers: org.auth,
			payload: body,
		});

	it("runs a tool the platform supports with the channel's token", async () => {
		const res = await run("communitySearch", {
			channelAccountId: channelId,
			input: { query: "sandbox" },
		});
		assert.equal(res.statusCode, 200, res.body);
		const body = res.json();
		assert.equal(body.tool, "communitySearch");
		assert.ok(
			body.results.some((c: { name: string }) => c.name === "Sandbox Makers"),
		);
		assert.ok(!res.body.includes(accessToken));
		assert.ok(sim.ledger.count("community_search") >= 1);
	});

	it("answers clear 4xx errors: unsupported tool, unknown tool, bad input, foreign or disconnected channel, scope", async () => {
		const unsupported = await run("boardList", { channelAccountId: channelId });
		assert.equal(unsupported.statusCode, 400);
		assert.equal(unsupported.json().error, "provider_tool_unsupported");
		assert.deepEqual(unsupported.json().supportedTools, [
			"mentionSearch",
			"communitySearch",
		]);
		const unknown = await run("teleport", { channelAccountId: channelId });
		assert.equal(unknown.statusCode, 400);
		assert.equal(unknown.json().error, "invalid_public_provider_tool_request");
		const noChannel = await run("mentionSearch", { input: {} });
		assert.equal(
			noChannel.json().error,
			"invalid_public_provider_tool_request",
		);
		const badInput = await run("mentionSearch", {
			channelAccountId: channelId,
			input: {},
		});
		assert.equal(badInput.statusCode, 400);
		assert.equal(badInput.json().error, "invalid_public_provider_tool_request");
		const foreign = await run(
			"mentionSearch",
			{ channelAccountId: channelId, input: { query: "a" } },
			b,
		);
		assert.equal(foreign.statusCode, 404);
		assert.equal(foreign.json().error, "channel_account_not_found");
		const noScope = await ctx.createOrganization({ scopes: ["publish:read"] });
		assert.equal(
			(
				await run(
					"mentionSearch",
					{ channelAccountId: channelId, input: { query: "a" } },
					noScope,
				)
			).statusCode,
			401,
		);
		await ctx.app.inject({
			method: "PATCH",
			url: `/v1/channel-accounts/${channelId}`,
			headers: a.auth,
			payload: { organizationId: a.organizationId, state: "disabled" },
		});
		const disabled = await run("mentionSearch", {
			channelAccountId: channelId,
			input: { query: "a" },
		});
		assert.equal(disabled.statusCode, 409);
		assert.equal(disabled.json().error, "channel_account_not_connected");
		await ctx.app.inject({
			method: "PATCH",
			url: `/v1/channel-accounts/${channelId}`,
			headers: a.auth,
			payload: { organizationId: a.organizationId, state: "connected" },
		});
	});

	it("maps platform failures: 429 with Retry-After, 502, and a refused token as not connected", async () => {
		sim.failures.inject({
			kind: "rate_limit",
			operation: "community_search",
			retryAfterSeconds: 42,
		});
		const limited = await run("communitySearch", {
			channelAccountId: channelId,
			input: { query: "x" },
		});
		assert.equal(limited.statusCode, 429);
		assert.equal(limited.json().error, "provider_rate_limited");
		assert.ok(Number(limited.headers["retry-after"]) > 0);
		sim.failures.inject({
			kind: "server_error",
			operation: "community_search",
		});
		const down = await run("communitySearch", {
			channelAccountId: channelId,
			input: { query: "x" },
		});
		assert.equal(down.statusCode, 502);
		assert.equal(down.json().error, "provider_request_failed");
		assert.equal(down.json().providerCategory, "transient");
		sim.failures.inject({
			kind: "expired_token",
			operation: "community_search",
		});
		const expired = await run("communitySearch", {
			channelAccountId: channelId,
			input: { query: "x" },
		});
		assert.equal(expired.statusCode, 409);
		assert.equal(expired.json().error, "channel_account_not_connected");
		for (const r of [limited, down, expired])
			assert.ok(!r.body.includes(accessToken));
	});
});
