import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { after, before, beforeEach, describe, it } from "node:test";
import {
	type OAuthTokens,
	type ProviderCallContext,
	ProviderError,
	type PublishMediaItem,
	type PublishResult,
	type SocialProvider,
} from "../../src/providers/provider.js";
import { createXProvider } from "../../src/providers/x/x.provider.js";
import { X_CAPABILITY, X_ENDPOINTS } from "../../src/providers/x/x.rules.js";
import {
	type RunningXSimulator,
	XSimulatorState,
	startXSimulator,
	xSimulatorBaseUrls,
	xSimulatorPlugin,
} from "../../src/sandbox/simulators/x.simulator.js";
import {
	FailureQueue,
	SimulatorLedger,
} from "../../src/sandbox/simulator-kit.js";
import Fastify from "fastify";
import multipart from "@fastify/multipart";

const REDIRECT =
	"https://app.example.test/v1/channel-accounts/oauth/callback/x";
const MiB = 1024 * 1024;

function media(
	kind: "image" | "gif" | "video",
	bytes: number,
	altText?: string,
): PublishMediaItem {
	const data = Buffer.alloc(bytes, 3);
	const mimeType =
		kind === "image" ? "image/png" : kind === "gif" ? "image/gif" : "video/mp4";
	return {
		kind,
		mimeType,
		bytes,
		url: `https://cdn.example.test/m.${kind}`,
		altText,
		durationSeconds: kind === "video" ? 10 : undefined,
		async open() {
			return (async function* () {
				for (let i = 0; i < data.length; i += 1_000_000)
					yield data.subarray(i, i + 1_000_000);
			})();
		},
	};
}

function pkce() {
	const verifier = randomBytes(32).toString("base64url");
	return {
		verifier,
		challenge: createHash("sha256").update(verifier).digest("base64url"),
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

const published = (r: PublishResult) => {
	assert.equal(r.status, "published");
	return r as Extract<PublishResult, { status: "published" }>;
};

describe("X adapter against the simulator", () => {
	let sim: RunningXSimulator;
	let provider: SocialProvider;

	const makeProvider = (
		timeoutMs = 5000,
		secret: string | null = sim.state.clientSecret,
	) =>
		createXProvider(
			{
				clientId: sim.state.clientId,
				clientSecret: secret,
				redirectUri: REDIRECT,
				...sim.baseUrls,
				timeoutMs,
			},
			{ minPollAfterMs: 10 },
		);

	async function authorizeCode(
		user: string,
		scopes = provider.oauth.defaultScopes,
	) {
		const { verifier, challenge } = pkce();
		const url = new URL(
			provider.oauth.authorizationUrl({
				state: "st-x",
				redirectUri: REDIRECT,
				scopes,
				codeChallenge: challenge,
			}),
		);
		url.searchParams.set("sandbox_user", user);
		const res = await fetch(url, { redirect: "manual" });
		assert.equal(res.status, 302);
		const location = new URL(res.headers.get("location") ?? "");
		assert.equal(location.searchParams.get("state"), "st-x");
		return { code: location.searchParams.get("code") ?? "", verifier };
	}

	async function connect(
		user: string,
		scopes?: string[],
	): Promise<OAuthTokens> {
		const { code, verifier } = await authorizeCode(user, scopes);
		return provider.oauth.exchangeCode({
			code,
			redirectUri: REDIRECT,
			codeVerifier: verifier,
		});
	}

	async function channel(user: string): Promise<ProviderCallContext> {
		const tokens = await connect(user);
		return {
			accessToken: tokens.accessToken,
			externalAccountId: "",
			channelSettings: { handle: user },
		};
	}

	async function pollUntilPublished(
		ctx: ProviderCallContext,
		first: PublishResult,
	) {
		let r = first;
		for (let i = 0; i < 100 && r.status === "processing"; i += 1) {
			await new Promise((res) => setTimeout(res, 10));
			r = await provider.pollPublish(ctx, r.pollToken);
		}
		return published(r);
	}

	before(async () => {
		sim = await startXSimulator({ mediaProcessingMs: 30 });
		provider = makeProvider();
	});
	after(() => sim.close());
	beforeEach(() => sim.failures.clear());

	it("builds the OAuth 2.0 authorization URL with PKCE S256", () => {
		assert.deepEqual(X_ENDPOINTS, {
			apiBaseUrl: "https://api.x.com",
			authBaseUrl: "https://x.com",
			uploadBaseUrl: "https://api.x.com",
		});
		const real = createXProvider({
			...X_ENDPOINTS,
			clientId: "cid",
			clientSecret: null,
			redirectUri: REDIRECT,
			timeoutMs: 1000,
		});
		const url = new URL(
			real.oauth.authorizationUrl({
				state: "s1",
				redirectUri: REDIRECT,
				scopes: real.oauth.defaultScopes,
				codeChallenge: "ch",
			}),
		);
		assert.equal(
			`${url.origin}${url.pathname}`,
			"https://x.com/i/oauth2/authorize",
		);
		assert.equal(url.searchParams.get("response_type"), "code");
		assert.equal(url.searchParams.get("client_id"), "cid");
		assert.equal(url.searchParams.get("redirect_uri"), REDIRECT);
		assert.equal(
			url.searchParams.get("scope"),
			"tweet.read tweet.write users.read offline.access media.write",
		);
		assert.equal(url.searchParams.get("state"), "s1");
		assert.equal(url.searchParams.get("code_challenge"), "ch");
		assert.equal(url.searchParams.get("code_challenge_method"), "S256");
		assert.equal(real.oauth.supportsPkce, true);
		assert.throws(() =>
			real.oauth.authorizationUrl({
				state: "s",
				redirectUri: REDIRECT,
				scopes: [],
			}),
		);
	});

	it("exchanges a code with the PKCE verifier, refreshes with rotation, revokes", async () => {
		const tokens = await connect("oauth_user");
		assert.ok(tokens.refreshToken);
		assert.deepEqual(tokens.scopes, X_CAPABILITY.requiredScopes);
		assert.ok(
			tokens.expiresAt &&
				Math.abs(tokens.expiresAt.getTime() - Date.now() - 7_200_000) < 10_000,
		);
		const [account] = await provider.lookupAccounts({ tokens });
		assert.equal(account?.handle, "oauth_user");
		assert.ok(account?.externalAccountId);

		const refreshed = await provider.oauth.refresh({
			refreshToken: tokens.refreshToken,
			accessToken: tokens.accessToken,
		});
		assert.notEqual(refreshed.refreshToken, tokens.refreshToken);
		await expectProviderError(
			provider.oauth.refresh({
				refreshToken: tokens.refreshToken,
				accessToken: "",
			}),
			"auth_expired",
			"invalid_request",
		);

		await provider.oauth.revoke({
			accessToken: refreshed.accessToken,
			externalAccountId: account?.externalAccountId ?? "",
		});
		await expectProviderError(
			provider.lookupAccounts({ tokens: refreshed }),
			"auth_expired",
		);
	});

	it("refuses a wrong code_verifier and a confidential client without Basic auth", async () => {
		const { code } = await authorizeCode("pkce_user");
		await expectProviderError(
			provider.oauth.exchangeCode({
				code,
				redirectUri: REDIRECT,
				codeVerifier: pkce().verifier,
			}),
			"auth_expired",
		);
		const again = await authorizeCode("pkce_user");
		const publicClient = makeProvider(5000, null);
		await expectProviderError(
			publicClient.oauth.exchangeCode({
				code: again.code,
				redirectUri: REDIRECT,
				codeVerifier: again.verifier,
			}),
			"platform_rejected",
			"unauthorized_client",
		);
	});

	it("posts a text post and builds its URL", async () => {
		const ctx = await channel("text_poster");
		const before = sim.ledger.posts.length;
		const r = published(
			await provider.publish(ctx, {
				text: "hello from the sandbox",
				media: [],
				settings: {},
				idempotencyKey: "t1",
			}),
		);
		assert.equal(r.url, `https://x.com/text_poster/status/${r.providerPostId}`);
		assert.equal(sim.ledger.posts.length, before + 1);
		assert.equal(
			sim.state.tweets.get(r.providerPostId)?.text,
			"hello from the sandbox",
		);
		const noHandle = {
			...ctx,
			externalAccountId: sim.state.user("text_poster").id,
			channelSettings: {},
		};
		const meCalls = sim.ledger.count("users_me");
		const r2 = published(
			await provider.publish(noHandle, {
				text: "second",
				media: [],
				settings: {},
				idempotencyKey: "t2",
			}),
		);
		assert.equal(
			r2.url,
			`https://x.com/text_poster/status/${r2.providerPostId}`,
		);
		const r3 = published(
			await provider.publish(noHandle, {
				text: "third",
				media: [],
				settings: {},
				idempotencyKey: "t2b",
			}),
		);
		assert.equal(
			r3.url,
			`https://x.com/text_poster/status/${r3.providerPostId}`,
		);
		// the handle is looked up once per account, then remembered
		assert.equal(sim.ledger.count("users_me") - meCalls, 1);
		assert.equal(await provider.fetchPermalink(ctx, r.providerPostId), r.url);
	});

	it("uploads images with INIT/APPEND/FINALIZE and alt text, then attaches them", async () => {
		const ctx = await channel("image_poster");
		const uploads = sim.ledger.count("media_upload");
		const r = published(
			await provider.publish(ctx, {
				text: "two pictures",
				media: [
					media("image", Math.floor(4.5 * MiB), "a red square"),
					media("image", 2000),
				],
				settings: {},
				idempotencyKey: "t3",
			}),
		);
		// first image: INIT + 2 APPEND + FINALIZE; second: INIT + APPEND + FINALIZE
		assert.equal(sim.ledger.count("media_upload") - uploads, 7);
		const tweet = sim.state.tweets.get(r.providerPostId);
		assert.equal(tweet?.mediaKeys.length, 2);
		const alt = [...sim.state.media.values()].find(
			(m) => m.altText === "a red square",
		);
		assert.ok(alt?.mediaKey.startsWith("3_"));
	});

	it("waits for video processing through STATUS before posting", async () => {
		const ctx = await channel("video_poster");
		const before = sim.ledger.posts.length;
		const first = await provider.publish(ctx, {
			text: "a video",
			media: [media("video", 600_000)],
			settings: {},
			idempotencyKey: "t4",
		});
		assert.equal(first.status, "processing");
		assert.equal(sim.ledger.posts.length, before);
		const done = await pollUntilPublished(ctx, first);
		assert.ok(sim.ledger.count("media_status") >= 1);
		assert.equal(
			sim.state.tweets.get(done.providerPostId)?.mediaKeys[0]?.startsWith("7_"),
			true,
		);
		assert.equal(sim.ledger.posts.length, before + 1);

		sim.state.failNextMediaProcessing(
			"InvalidMedia",
			"Unsupported video format",
		);
		const failing = await provider.publish(ctx, {
			text: "bad video",
			media: [media("video", 1000)],
			settings: {},
			idempotencyKey: "t5",
		});
		await new Promise((res) => setTimeout(res, 40));
		await expectProviderError(
			provider.pollPublish(
				ctx,
				failing.status === "processing" ? failing.pollToken : "",
			),
			"user_content",
			"InvalidMedia",
		);
	});

	it("refuses mixed or too many media before calling X", async () => {
		const ctx = await channel("mixer");
		const calls = sim.ledger.requests.length;
		const send = (m: PublishMediaItem[]) =>
			provider.publish(ctx, {
				text: "x",
				media: m,
				settings: {},
				idempotencyKey: "m",
			});
		await expectProviderError(
			send([media("image", 10), media("video", 10)]),
			"user_content",
			"media_mixed",
		);
		await expectProviderError(
			send([1, 2, 3, 4, 5].map(() => media("image", 10))),
			"user_content",
			"too_many_media",
		);
		await expectProviderError(
			send([media("gif", 10), media("gif", 10)]),
			"user_content",
			"too_many_media",
		);
		assert.equal(sim.ledger.requests.length, calls);
	});

	it("replies as comments and lists the conversation", async () => {
		const ctx = await channel("convo_owner");
		const post = published(
			await provider.publish(ctx, {
				text: "start a thread",
				media: [],
				settings: {},
				idempotencyKey: "c1",
			}),
		);
		const first = await provider.postComment(ctx, {
			providerPostId: post.providerPostId,
			text: "first comment",
		});
		assert.equal(
			sim.ledger.comments.at(-1)?.commentId,
			first.providerCommentId,
		);
		const fan = sim.state.seedReply(post.providerPostId, {
			username: "a_fan",
			text: "love it",
		});
		const answer = await provider.postComment(ctx, {
			providerPostId: post.providerPostId,
			text: "thanks!",
			replyToCommentId: fan.id,
		});
		const comments = await provider.listComments(ctx, {
			providerPostId: post.providerPostId,
			limit: 50,
		});
		assert.deepEqual(
			comments.map((c) => c.providerCommentId).sort(),
			[first.providerCommentId, fan.id, answer.providerCommentId].sort(),
		);
		const fanComment = comments.find((c) => c.providerCommentId === fan.id);
		assert.equal(fanComment?.authorHandle, "a_fan");
		assert.equal(fanComment?.parentProviderCommentId, null);
		assert.equal(
			fanComment?.permalinkUrl,
			`https://x.com/a_fan/status/${fan.id}`,
		);
		assert.equal(
			comments.find((c) => c.providerCommentId === answer.providerCommentId)
				?.parentProviderCommentId,
			fan.id,
		);
		const limited = await provider.listComments(ctx, {
			providerPostId: post.providerPostId,
			limit: 2,
		});
		assert.equal(limited.length, 2);
	});

	it("reads public metrics", async () => {
		const ctx = await channel("metrics_user");
		const post = published(
			await provider.publish(ctx, {
				text: "count me",
				media: [],
				settings: {},
				idempotencyKey: "a1",
			}),
		);
		Object.assign(sim.state.tweets.get(post.providerPostId)?.metrics ?? {}, {
			like_count: 5,
			impression_count: 300,
			retweet_count: 2,
		});
		const a = await provider.fetchPostAnalytics(ctx, {
			providerPostId: post.providerPostId,
		});
		assert.deepEqual(a.metrics, {
			impressions: 300,
			likes: 5,
			replies: 0,
			reposts: 2,
			quotes: 0,
			bookmarks: 0,
		});
		await expectProviderError(
			provider.fetchPostAnalytics(ctx, { providerPostId: "1" }),
			"user_content",
		);
	});

	it("runs mentionSearch (with the username lookup fallback) and communitySearch", async () => {
		const ctx = await channel("tool_user");
		sim.state.user("searchme_brand");
		const found = await provider.runTool(ctx, "mentionSearch", {
			query: "@searchme",
		});
		assert.deepEqual(
			found.map((u) => u.username),
			["searchme_brand"],
		);
		sim.state.usersSearchEnabled = false;
		try {
			const exact = await provider.runTool(ctx, "mentionSearch", {
				query: "searchme_brand",
			});
			assert.deepEqual(
				exact.map((u) => u.username),
				["searchme_brand"],
			);
			assert.ok(sim.ledger.count("users_lookup") >= 1);
		} finally {
			sim.state.usersSearchEnabled = true;
		}
		const communities = await provider.runTool(ctx, "communitySearch", {
			query: "makers",
		});
		assert.deepEqual(
			communities.map((c) => c.name),
			["Sandbox Makers"],
		);
		await expectProviderError(
			provider.runTool(ctx, "boardList", {}),
			"platform_rejected",
		);
		await expectProviderError(
			provider.runTool(ctx, "mentionSearch", {}),
			"user_content",
		);
	});

	it("maps errors: 401, 429 with x-rate-limit-reset, 5xx, duplicate, too long, missing scope", async () => {
		const ctx = await channel("error_user");
		const post = (text: string) =>
			provider.publish(ctx, {
				text,
				media: [],
				settings: {},
				idempotencyKey: "e",
			});
		sim.failures.inject({ kind: "expired_token", operation: "publish" });
		await expectProviderError(post("one"), "auth_expired");
		sim.failures.inject({
			kind: "rate_limit",
			operation: "publish",
			retryAfterSeconds: 120,
		});
		const limited = await expectProviderError(post("two"), "rate_limited");
		assert.ok(
			limited.retryAfterSeconds !== null &&
				limited.retryAfterSeconds >= 118 &&
				limited.retryAfterSeconds <= 121,
		);
		sim.failures.inject({ kind: "server_error", operation: "publish" });
		await expectProviderError(post("three"), "transient");
		await post("same text");
		await expectProviderError(
			post("same text"),
			"user_content",
			"duplicate_content",
		);
		await expectProviderError(
			post("x".repeat(281)),
			"user_content",
			"invalid-request",
		);
		await expectProviderError(
			provider.publish(ctx, {
				text: "reply",
				media: [],
				settings: { in_reply_to_tweet_id: "42" },
				idempotencyKey: "r",
			}),
			"user_content",
		);
		const readOnly = await connect("read_only", ["tweet.read", "users.read"]);
		await expectProviderError(
			provider.publish(
				{ ...ctx, accessToken: readOnly.accessToken },
				{ text: "nope", media: [], settings: {}, idempotencyKey: "n" },
			),
			"platform_rejected",
			"oauth2-permissions",
		);
	});

	it("answers 429 with the real window once the post limit is spent", async () => {
		const ctx = await channel("busy_poster");
		const limit = sim.state.postsPer15Minutes;
		sim.state.postsPer15Minutes = 2;
		try {
			await provider.publish(ctx, {
				text: "p1",
				media: [],
				settings: {},
				idempotencyKey: "w1",
			});
			await provider.publish(ctx, {
				text: "p2",
				media: [],
				settings: {},
				idempotencyKey: "w2",
			});
			const err = await expectProviderError(
				provider.publish(ctx, {
					text: "p3",
					media: [],
					settings: {},
					idempotencyKey: "w3",
				}),
				"rate_limited",
			);
			assert.ok((err.retryAfterSeconds ?? 0) > 800);
		} finally {
			sim.state.postsPer15Minutes = limit;
		}
	});

	it("reports unknown_outcome when a post answer is lost, and the ledger shows one post", async () => {
		const ctx = await channel("lost_user");
		const before = sim.ledger.posts.filter(
			(p) => p.text === "lost answer",
		).length;
		sim.failures.inject({ kind: "lost_response", operation: "publish" });
		await expectProviderError(
			provider.publish(ctx, {
				text: "lost answer",
				media: [],
				settings: {},
				idempotencyKey: "l1",
			}),
			"unknown_outcome",
		);
		assert.equal(
			sim.ledger.posts.filter((p) => p.text === "lost answer").length,
			before + 1,
		);

		const quick = makeProvider(200);
		sim.failures.inject({
			kind: "timeout",
			operation: "publish",
			delayMs: 2000,
		});
		await expectProviderError(
			quick.publish(ctx, {
				text: "slow",
				media: [],
				settings: {},
				idempotencyKey: "l2",
			}),
			"unknown_outcome",
		);
		sim.failures.inject({
			kind: "timeout",
			operation: "tweet_lookup",
			delayMs: 2000,
		});
		await expectProviderError(
			quick.fetchPostAnalytics(ctx, { providerPostId: "1" }),
			"transient",
		);
	});

	it("reports transient when X cannot be reached", async () => {
		const down = createXProvider({
			clientId: "c",
			clientSecret: null,
			redirectUri: REDIRECT,
			apiBaseUrl: "http://127.0.0.1:9",
			authBaseUrl: "http://127.0.0.1:9",
			uploadBaseUrl: "http://127.0.0.1:9",
			timeoutMs: 1000,
		});
		await expectProviderError(
			down.publish(
				{ accessToken: "a", externalAccountId: "b", channelSettings: {} },
				{ text: "hi", media: [], settings: {}, idempotencyKey: "d" },
			),
			"transient",
		);
	});

	it("works mounted under a prefix of an app that has its own multipart parser", async () => {
		const host = Fastify({ logger: false, forceCloseConnections: true });
		await host.register(multipart);
		const state = new XSimulatorState();
		const ledger = new SimulatorLedger();
		await host.register(xSimulatorPlugin, {
			prefix: "/sandbox/x",
			state,
			ledger,
			failures: new FailureQueue(),
		});
		const origin = await host.listen({ host: "127.0.0.1", port: 0 });
		try {
			const mounted = createXProvider({
				clientId: state.clientId,
				clientSecret: state.clientSecret,
				redirectUri: REDIRECT,
				...xSimulatorBaseUrls(origin, "/sandbox/x"),
				timeoutMs: 5000,
			});
			const { verifier, challenge } = pkce();
			const authUrl = mounted.oauth.authorizationUrl({
				state: "m",
				redirectUri: REDIRECT,
				scopes: mounted.oauth.defaultScopes,
				codeChallenge: challenge,
			});
			assert.ok(authUrl.startsWith(`${origin}/sandbox/x/i/oauth2/authorize?`));
			const res = await fetch(authUrl, { redirect: "manual" });
			const code =
				new URL(res.headers.get("location") ?? "").searchParams.get("code") ??
				"";
			const tokens = await mounted.oauth.exchangeCode({
				code,
				redirectUri: REDIRECT,
				codeVerifier: verifier,
			});
			const r = published(
				await mounted.publish(
					{
						accessToken: tokens.accessToken,
						externalAccountId: "",
						channelSettings: {},
					},
					{
						text: "mounted",
						media: [media("image", 1500)],
						settings: {},
						idempotencyKey: "mm",
					},
				),
			);
			assert.equal(
				r.url,
				`https://x.com/sandbox_brand/status/${r.providerPostId}`,
			);
			assert.equal(ledger.posts.length, 1);
		} finally {
			await host.close();
		}
	});
});
