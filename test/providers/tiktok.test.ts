import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import {
	type OAuthTokens,
	type ProviderCallContext,
	ProviderError,
	type PublishMediaItem,
	type PublishRequest,
	type SocialProvider,
} from "../../src/providers/provider.js";
import {
	TIKTOK_CAPABILITY,
	TIKTOK_ENDPOINTS,
} from "../../src/providers/tiktok/tiktok.rules.js";
import { createTiktokProvider } from "../../src/providers/tiktok/tiktok.provider.js";
import {
	type RunningTiktokSimulator,
	TiktokSimulatorState,
	startTiktokSimulator,
	tiktokSimulatorBaseUrls,
	tiktokSimulatorPlugin,
} from "../../src/sandbox/simulators/tiktok.simulator.js";
import {
	FailureQueue,
	SimulatorLedger,
} from "../../src/sandbox/simulator-kit.js";
import Fastify from "fastify";

const MiB = 1024 * 1024;
const REDIRECT =
	"https://app.example.test/v1/channel-accounts/oauth/callback/tiktok";

function videoItem(bytes: number, durationSeconds = 12): PublishMediaItem {
	const data = Buffer.alloc(bytes, 7);
	return {
		kind: "video",
		mimeType: "video/mp4",
		bytes,
		url: "https://cdn.example.test/v.mp4",
		durationSeconds,
		async open() {
			return (async function* () {
				for (let i = 0; i < data.length; i += MiB)
					yield data.subarray(i, i + MiB);
			})();
		},
	};
}

function imageItem(n: number): PublishMediaItem {
	return {
		kind: "image",
		mimeType: "image/jpeg",
		bytes: 1000,
		url: `https://cdn.example.test/p${n}.jpg`,
		async open() {
			return (async function* () {
				yield Buffer.alloc(1000);
			})();
		},
	};
}

const baseSettings = {
	privacy_level: "PUBLIC_TO_EVERYONE",
	disable_comment: false,
	disable_duet: false,
	disable_stitch: false,
	brand_content_toggle: false,
	brand_organic_toggle: false,
};

function request(
	media: PublishMediaItem[],
	settings: Record<string, unknown> = {},
	text = "hello tiktok",
): PublishRequest {
	return {
		text,
		media,
		settings: { ...baseSettings, ...settings },
		idempotencyKey: "tgt_1",
	};
}

async function expectProviderError(
	p: Promise<unknown>,
	category: string,
	code?: string,
): Promise<ProviderError> {
	try {
		await p;
	} catch (err) {
		assert.ok(
			err instanceof ProviderError,
			`expected ProviderError, got ${String(err)}`,
		);
		assert.equal(err.category, category, `category (${err.message})`);
		if (code) assert.equal(err.providerCode, code);
		return err;
	}
	assert.fail(`expected ProviderError ${category}`);
}

describe("TikTok adapter against the simulator", () => {
	let sim: RunningTiktokSimulator;
	let provider: SocialProvider;

	const makeProvider = (timeoutMs = 5000) =>
		createTiktokProvider(
			{
				clientId: sim.state.clientKey,
				clientSecret: sim.state.clientSecret,
				redirectUri: REDIRECT,
				...sim.baseUrls,
				timeoutMs,
			},
			{ chunkSizeBytes: 5 * MiB, pollAfterMs: 10 },
		);

	async function connect(
		scopes = provider.oauth.defaultScopes,
		user?: string,
	): Promise<OAuthTokens> {
		const url = new URL(
			provider.oauth.authorizationUrl({
				state: "st-1",
				redirectUri: REDIRECT,
				scopes,
			}),
		);
		if (user) url.searchParams.set("sandbox_user", user);
		const res = await fetch(url, { redirect: "manual" });
		assert.equal(res.status, 302);
		const location = new URL(res.headers.get("location") ?? "");
		assert.equal(location.searchParams.get("state"), "st-1");
		return provider.oauth.exchangeCode({
			code: location.searchParams.get("code") ?? "",
			redirectUri: REDIRECT,
		});
	}

	async function channel(user?: string): Promise<ProviderCallContext> {
		const tokens = await connect(undefined, user);
		return {
			accessToken: tokens.accessToken,
			externalAccountId: tokens.extra.open_id ?? "",
			channelSettings: {},
		};
	}

	async function pollUntilDone(ctx: ProviderCallContext, pollToken: string) {
		for (let i = 0; i < 100; i += 1) {
			const r = await provider.pollPublish(ctx, pollToken);
			if (r.status === "published") return r;
			await new Promise((res) => setTimeout(res, 10));
		}
		assert.fail("publish never completed");
	}

	before(async () => {
		sim = await startTiktokSimulator({ processingDelayMs: 20 });
		provider = makeProvider();
	});
	after(() => sim.close());
	beforeEach(() => sim.failures.clear());

	it("builds the Login Kit authorization URL", () => {
		assert.deepEqual(TIKTOK_ENDPOINTS, {
			apiBaseUrl: "https://open.tiktokapis.com",
			authBaseUrl: "https://www.tiktok.com",
			uploadBaseUrl: "https://open-upload.tiktokapis.com",
		});
		const url = new URL(
			provider.oauth.authorizationUrl({
				state: "abc",
				redirectUri: REDIRECT,
				scopes: ["user.info.basic", "video.publish"],
			}),
		);
		assert.equal(url.pathname, "/v2/auth/authorize/");
		assert.equal(url.searchParams.get("client_key"), sim.state.clientKey);
		assert.equal(
			url.searchParams.get("scope"),
			"user.info.basic,video.publish",
		);
		assert.equal(url.searchParams.get("response_type"), "code");
		assert.equal(url.searchParams.get("redirect_uri"), REDIRECT);
		assert.equal(url.searchParams.get("state"), "abc");
		assert.equal(provider.oauth.supportsPkce, false);
	});

	it("exchanges the code, looks up the account, refreshes and revokes", async () => {
		const tokens = await connect(undefined, "brand.one");
		assert.ok(tokens.accessToken.startsWith("act."));
		assert.ok(tokens.refreshToken);
		assert.ok(
			tokens.expiresAt && tokens.expiresAt.getTime() > Date.now() + 80_000_000,
		);
		assert.deepEqual(tokens.scopes, provider.oauth.defaultScopes);
		const accounts = await provider.lookupAccounts({ tokens });
		assert.equal(accounts.length, 1);
		assert.equal(accounts[0]?.externalAccountId, tokens.extra.open_id);
		assert.equal(accounts[0]?.handle, "brand.one");

		sim.state.expireAccessToken(tokens.accessToken);
		await expectProviderError(
			provider.lookupAccounts({ tokens }),
			"auth_expired",
			"access_token_invalid",
		);
		const refreshed = await provider.oauth.refresh({
			refreshToken: tokens.refreshToken,
			accessToken: tokens.accessToken,
		});
		assert.notEqual(refreshed.accessToken, tokens.accessToken);
		assert.equal(
			(await provider.lookupAccounts({ tokens: refreshed }))[0]?.handle,
			"brand.one",
		);

		await provider.oauth.revoke({
			accessToken: refreshed.accessToken,
			externalAccountId: accounts[0]!.externalAccountId,
		});
		await expectProviderError(
			provider.lookupAccounts({ tokens: refreshed }),
			"auth_expired",
		);
		await expectProviderError(
			provider.oauth.refresh({
				refreshToken: tokens.refreshToken,
				accessToken: "",
			}),
			"auth_expired",
			"invalid_grant",
		);
	});

	it("rejects a code exchange with a wrong client secret as platform_rejected", async () => {
		const bad = createTiktokProvider({
			...sim.baseUrls,
			clientId: sim.state.clientKey,
			clientSecret: "nope",
			redirectUri: REDIRECT,
			timeoutMs: 2000,
		});
		await expectProviderError(
			bad.oauth.exchangeCode({ code: "x", redirectUri: REDIRECT }),
			"platform_rejected",
			"invalid_client",
		);
	});

	it("publishes a small video: creator_info, init, one chunk, status fetch", async () => {
		const ctx = await channel("small.video");
		const before = sim.ledger.posts.length;
		const result = await provider.publish(ctx, request([videoItem(300_000)]));
		assert.equal(result.status, "processing");
		assert.equal(sim.ledger.count("upload") > 0, true);
		const done = await pollUntilDone(
			ctx,
			result.status === "processing" ? result.pollToken : "",
		);
		assert.match(done.providerPostId, /^\d+$/);
		assert.equal(
			done.url,
			`https://www.tiktok.com/@small.video/video/${done.providerPostId}`,
		);
		assert.equal(sim.ledger.posts.length, before + 1);
		const publish = [...sim.state.publishes.values()].at(-1)!;
		assert.deepEqual(
			[publish.videoSize, publish.chunkSize, publish.totalChunkCount],
			[300_000, 300_000, 1],
		);
		assert.equal(
			await provider.fetchPermalink(ctx, done.providerPostId),
			done.url,
		);
	});

	it("uploads a large video in sequential chunks with the trailing bytes in the last one", async () => {
		const ctx = await channel("big.video");
		const uploadsBefore = sim.ledger.count("upload");
		const result = await provider.publish(
			ctx,
			request([videoItem(11 * MiB + 123)]),
		);
		assert.equal(sim.ledger.count("upload") - uploadsBefore, 2);
		const publish = [...sim.state.publishes.values()].at(-1)!;
		assert.deepEqual(
			[publish.chunkSize, publish.totalChunkCount, publish.receivedBytes],
			[5 * MiB, 2, 11 * MiB + 123],
		);
		assert.equal(result.status, "processing");
		const done = await pollUntilDone(
			ctx,
			result.status === "processing" ? result.pollToken : "",
		);
		assert.ok(done.providerPostId);
	});

	it("publishes photos with PULL_FROM_URL, and SELF_ONLY posts without a public id", async () => {
		const ctx = await channel("photo.creator");
		const result = await provider.publish(
			ctx,
			request(
				[imageItem(1), imageItem(2)],
				{ privacy_level: "SELF_ONLY" },
				"two photos",
			),
		);
		assert.equal(result.status, "processing");
		const publish = [...sim.state.publishes.values()].at(-1)!;
		assert.equal(publish.kind, "photo");
		assert.equal(publish.mediaCount, 2);
		const done = await pollUntilDone(
			ctx,
			result.status === "processing" ? result.pollToken : "",
		);
		assert.equal(done.providerPostId, publish.publishId);
		assert.equal(done.url, null);
	});

	it("checks privacy_level and duration against creator_info before init", async () => {
		const ctx = await channel("checks");
		const inits = sim.ledger.count("publish");
		await expectProviderError(
			provider.publish(
				ctx,
				request([videoItem(1000)], { privacy_level: "FOLLOWER_OF_CREATOR" }),
			),
			"user_content",
			"privacy_level_option_mismatch",
		);
		await expectProviderError(
			provider.publish(ctx, request([videoItem(1000, 601)])),
			"user_content",
			"duration_check_failed",
		);
		await expectProviderError(
			provider.publish(
				ctx,
				request([videoItem(1000)], {
					privacy_level: "SELF_ONLY",
					brand_content_toggle: true,
				}),
			),
			"user_content",
		);
		await expectProviderError(
			provider.publish(ctx, request([videoItem(1000), imageItem(1)])),
			"user_content",
		);
		assert.equal(sim.ledger.count("publish"), inits);
	});

	it("maps a FAILED status fail_reason to its category", async () => {
		const ctx = await channel("fails");
		for (const [reason, category] of [
			["file_format_check_failed", "user_content"],
			["spam_risk_user_banned_from_posting", "platform_rejected"],
			["auth_removed", "auth_expired"],
			["internal", "transient"],
		] as const) {
			sim.state.failNextPublish(reason);
			const r = await provider.publish(ctx, request([videoItem(2000)]));
			await new Promise((res) => setTimeout(res, 30));
			await expectProviderError(
				provider.pollPublish(ctx, r.status === "processing" ? r.pollToken : ""),
				category,
				reason,
			);
		}
	});

	it("maps API errors: expired token, rate limit, 5xx, scope, unaudited client, daily cap", async () => {
		const ctx = await channel("errors");
		const req = request([videoItem(1000)]);
		sim.failures.inject({ kind: "expired_token", operation: "creator_info" });
		await expectProviderError(
			provider.publish(ctx, req),
			"auth_expired",
			"access_token_invalid",
		);
		sim.failures.inject({ kind: "rate_limit", operation: "publish" });
		const limited = await expectProviderError(
			provider.publish(ctx, req),
			"rate_limited",
			"rate_limit_exceeded",
		);
		assert.equal(limited.retryAfterSeconds, 60);
		assert.equal(limited.httpStatus, 429);
		sim.failures.inject({ kind: "server_error", operation: "status" });
		await expectProviderError(
			provider.pollPublish(ctx, "whatever"),
			"transient",
			"internal_error",
		);

		const narrow = await connect(["user.info.basic"]);
		const narrowCtx = {
			accessToken: narrow.accessToken,
			externalAccountId: "",
			channelSettings: {},
		};
		await expectProviderError(
			provider.publish(narrowCtx, req),
			"auth_expired",
			"scope_not_authorized",
		);

		sim.state.unaudited = true;
		try {
			await expectProviderError(
				provider.publish(ctx, req),
				"platform_rejected",
				"unaudited_client_can_only_post_to_private_accounts",
			);
		} finally {
			sim.state.unaudited = false;
		}
		const cap = sim.state.dailyPostCap;
		sim.state.dailyPostCap = 0;
		try {
			const capped = await expectProviderError(
				provider.publish(ctx, req),
				"rate_limited",
				"spam_risk_too_many_posts",
			);
			assert.ok((capped.retryAfterSeconds ?? 0) > 0);
		} finally {
			sim.state.dailyPostCap = cap;
		}
	});

	it("answers rate_limit_exceeded past 6 init calls a minute for one token", async () => {
		const ctx = await channel("busy");
		const photos = request([imageItem(1)]);
		for (let i = 0; i < 6; i += 1) await provider.publish(ctx, photos);
		await expectProviderError(
			provider.publish(ctx, photos),
			"rate_limited",
			"rate_limit_exceeded",
		);
	});

	it("reports unknown_outcome when the final chunk answer is lost, with exactly one post", async () => {
		const ctx = await channel("lost.upload");
		const before = sim.ledger.posts.length;
		sim.failures.inject({ kind: "lost_response", operation: "upload" });
		await expectProviderError(
			provider.publish(ctx, request([videoItem(4000)])),
			"unknown_outcome",
		);
		assert.equal(sim.ledger.posts.length, before + 1);
	});

	it("reports unknown_outcome when an init answer is lost, transient when a status fetch times out", async () => {
		const ctx = await channel("lost.init");
		sim.failures.inject({ kind: "lost_response", operation: "publish" });
		await expectProviderError(
			provider.publish(ctx, request([imageItem(1)])),
			"unknown_outcome",
		);
		const quick = makeProvider(200);
		sim.failures.inject({
			kind: "timeout",
			operation: "status",
			delayMs: 2000,
		});
		await expectProviderError(quick.pollPublish(ctx, "any"), "transient");
		sim.failures.inject({
			kind: "timeout",
			operation: "publish",
			delayMs: 2000,
		});
		await expectProviderError(
			quick.publish(ctx, request([imageItem(1)])),
			"unknown_outcome",
		);
	});

	it("reports transient when the platform cannot be reached", async () => {
		const down = createTiktokProvider({
			clientId: "k",
			clientSecret: "s",
			redirectUri: REDIRECT,
			apiBaseUrl: "http://127.0.0.1:9",
			authBaseUrl: "http://127.0.0.1:9",
			uploadBaseUrl: "http://127.0.0.1:9",
			timeoutMs: 1000,
		});
		await expectProviderError(
			down.publish(
				{ accessToken: "a", externalAccountId: "b", channelSettings: {} },
				request([imageItem(1)]),
			),
			"transient",
		);
	});

	it("reads video metrics, offers privacy options, and refuses comments", async () => {
		const ctx = await channel("metrics");
		const r = await provider.publish(ctx, request([videoItem(1500)]));
		const done = await pollUntilDone(
			ctx,
			r.status === "processing" ? r.pollToken : "",
		);
		Object.assign(sim.state.videos.get(done.providerPostId)!, {
			viewCount: 120,
			likeCount: 9,
			commentCount: 3,
			shareCount: 2,
		});
		const analytics = await provider.fetchPostAnalytics(ctx, {
			providerPostId: done.providerPostId,
		});
		assert.deepEqual(analytics.metrics, {
			views: 120,
			likes: 9,
			comments: 3,
			shares: 2,
		});

		const options = await provider.runTool(ctx, "privacyOptions", {});
		assert.deepEqual(
			options.map((o) => o.value),
			["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "SELF_ONLY"],
		);
		assert.equal(options[0]?.maxVideoPostDurationSec, 600);
		assert.deepEqual(TIKTOK_CAPABILITY.toolNames, ["privacyOptions"]);
		await expectProviderError(
			provider.runTool(ctx, "mentionSearch", {}),
			"platform_rejected",
		);
		await expectProviderError(
			provider.postComment(ctx, {
				providerPostId: done.providerPostId,
				text: "hi",
			}),
			"platform_rejected",
		);
		await expectProviderError(
			provider.listComments(ctx, {
				providerPostId: done.providerPostId,
				limit: 10,
			}),
			"platform_rejected",
		);
	});

	it("works mounted under a prefix of another app (sandbox mode)", async () => {
		const host = Fastify({ logger: false, forceCloseConnections: true });
		host.addContentTypeParser(
			"application/x-www-form-urlencoded",
			{ parseAs: "string" },
			(_req, _body, done) => done(null, { host: "parser" }),
		);
		host.get("/health", async () => ({ ok: true }));
		const state = new TiktokSimulatorState({ processingDelayMs: 5 });
		const ledger = new SimulatorLedger();
		await host.register(tiktokSimulatorPlugin, {
			prefix: "/sandbox/tiktok",
			state,
			ledger,
			failures: new FailureQueue(),
		});
		const origin = await host.listen({ host: "127.0.0.1", port: 0 });
		try {
			const urls = tiktokSimulatorBaseUrls(origin, "/sandbox/tiktok");
			assert.equal(urls.apiBaseUrl, `${origin}/sandbox/tiktok`);
			const mounted = createTiktokProvider({
				clientId: state.clientKey,
				clientSecret: state.clientSecret,
				redirectUri: REDIRECT,
				...urls,
				timeoutMs: 5000,
			});
			const authUrl = mounted.oauth.authorizationUrl({
				state: "m1",
				redirectUri: REDIRECT,
				scopes: mounted.oauth.defaultScopes,
			});
			const res = await fetch(authUrl, { redirect: "manual" });
			const code = new URL(res.headers.get("location") ?? "").searchParams.get(
				"code",
			);
			const tokens = await mounted.oauth.exchangeCode({
				code: code ?? "",
				redirectUri: REDIRECT,
			});
			const ctx = {
				accessToken: tokens.accessToken,
				externalAccountId: "",
				channelSettings: {},
			};
			const r = await mounted.publish(ctx, request([videoItem(2000)]));
			assert.equal(r.status, "processing");
			await new Promise((done) => setTimeout(done, 20));
			const done = await mounted.pollPublish(
				ctx,
				r.status === "processing" ? r.pollToken : "",
			);
			assert.equal(done.status, "published");
			assert.equal(ledger.posts.length, 1);
			assert.ok(
				ledger.requests.some((q) =>
					q.url.startsWith("/sandbox/tiktok/upload/video/"),
				),
			);
		} finally {
			await host.close();
		}
	});
});
