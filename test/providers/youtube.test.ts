import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { after, before, beforeEach, describe, test } from "node:test";
import {
	type ProviderCallContext,
	ProviderError,
	type PublishMediaItem,
	type SocialProvider,
} from "../../src/providers/provider.js";
import { createYoutubeProvider } from "../../src/providers/youtube/youtube.provider.js";
import { YOUTUBE_ENDPOINTS } from "../../src/providers/youtube/youtube.rules.js";
import {
	type RunningYoutubeSimulator,
	startYoutubeSimulator,
} from "../../src/sandbox/simulators/google.simulator.js";

const REDIRECT = "http://127.0.0.1:9/oauth/callback/youtube";

function video(bytes = randomBytes(4096)): PublishMediaItem {
	return {
		kind: "video",
		mimeType: "video/mp4",
		bytes: bytes.length,
		url: "http://127.0.0.1:9/unused",
		async open() {
			return (async function* () {
				yield bytes.subarray(0, 1000);
				yield bytes.subarray(1000);
			})();
		},
	};
}

async function rejectsWith(
	promise: Promise<unknown>,
	category: string,
	providerCode?: string,
): Promise<ProviderError> {
	try {
		await promise;
	} catch (err) {
		assert.ok(
			err instanceof ProviderError,
			`expected ProviderError, got ${String(err)}`,
		);
		assert.equal(err.category, category, err.message);
		if (providerCode !== undefined)
			assert.equal(err.providerCode, providerCode);
		return err;
	}
	assert.fail(`expected a ${category} ProviderError`);
}

describe("youtube adapter against the Google simulator", () => {
	let sim: RunningYoutubeSimulator;
	let yt: SocialProvider;
	let ctx: ProviderCallContext;

	function provider(
		overrides: { timeoutMs?: number; apiBaseUrl?: string } = {},
	): SocialProvider {
		return createYoutubeProvider({
			clientId: "yt-client",
			clientSecret: "yt-secret",
			redirectUri: REDIRECT,
			...sim.baseUrls,
			timeoutMs: 2000,
			...overrides,
		});
	}

	const publishRequest = (
		settings: Record<string, unknown> = {},
		text = "A description",
	) => ({
		text,
		media: [video()],
		settings: { title: "Launch video", privacyStatus: "unlisted", ...settings },
		idempotencyKey: "tgt_1",
	});

	before(async () => {
		sim = await startYoutubeSimulator();
		yt = provider();
	});
	after(() => sim.close());
	beforeEach(() => {
		sim.failures.clear();
		sim.state.processingReads = 1;
		sim.state.quotaRemaining = 10_000;
		const { accessToken } = sim.state.issueTokens();
		ctx = {
			accessToken,
			externalAccountId: sim.state.defaultChannel.id,
			channelSettings: {},
		};
	});

	test("authorization URL carries offline access, consent, PKCE S256 and the three scopes", () => {
		const url = new URL(
			yt.oauth.authorizationUrl({
				state: "st-1",
				redirectUri: REDIRECT,
				scopes: yt.oauth.defaultScopes,
				codeChallenge: "abc",
			}),
		);
		assert.equal(
			url.origin + url.pathname,
			`${sim.url}/oauth/o/oauth2/v2/auth`,
		);
		const p = url.searchParams;
		assert.equal(p.get("client_id"), "yt-client");
		assert.equal(p.get("response_type"), "code");
		assert.equal(p.get("access_type"), "offline");
		assert.equal(p.get("prompt"), "consent");
		assert.equal(p.get("code_challenge"), "abc");
		assert.equal(p.get("code_challenge_method"), "S256");
		assert.equal(p.get("state"), "st-1");
		assert.deepEqual(p.get("scope")?.split(" ").sort(), [
			"https://www.googleapis.com/auth/youtube.force-ssl",
			"https://www.googleapis.com/auth/youtube.readonly",
			"https://www.googleapis.com/auth/youtube.upload",
		]);
		const prod = createYoutubeProvider({
			clientId: "c",
			clientSecret: "s",
			redirectUri: REDIRECT,
			...YOUTUBE_ENDPOINTS,
			timeoutMs: 1000,
		});
		assert.ok(
			prod.oauth
				.authorizationUrl({ state: "s", redirectUri: REDIRECT, scopes: [] })
				.startsWith("https://accounts.google.com/o/oauth2/v2/auth?"),
		);
	});

	test("consent redirects with code and state; code exchange with PKCE gives tokens for the channel", async () => {
		const verifier = randomBytes(32).toString("base64url");
		const challenge = createHash("sha256").update(verifier).digest("base64url");
		const authUrl = yt.oauth.authorizationUrl({
			state: "st-2",
			redirectUri: REDIRECT,
			scopes: yt.oauth.defaultScopes,
			codeChallenge: challenge,
		});
		const res = await fetch(authUrl, { redirect: "manual" });
		assert.equal(res.status, 302);
		const back = new URL(res.headers.get("location") ?? "");
		assert.equal(back.origin + back.pathname, REDIRECT);
		assert.equal(back.searchParams.get("state"), "st-2");
		const code = back.searchParams.get("code") ?? "";

		await rejectsWith(
			yt.oauth.exchangeCode({
				code,
				redirectUri: REDIRECT,
				codeVerifier: "wrong-verifier",
			}),
			"auth_expired",
			"invalid_grant",
		);
		const tokens = await yt.oauth.exchangeCode({
			code,
			redirectUri: REDIRECT,
			codeVerifier: verifier,
		});
		assert.match(tokens.accessToken, /^ya29\./);
		assert.ok(tokens.refreshToken);
		assert.ok(
			tokens.expiresAt && tokens.expiresAt.getTime() > Date.now() + 3000_000,
		);
		assert.equal(tokens.scopes.length, 3);
		// a code works once
		await rejectsWith(
			yt.oauth.exchangeCode({
				code,
				redirectUri: REDIRECT,
				codeVerifier: verifier,
			}),
			"auth_expired",
		);

		const accounts = await yt.lookupAccounts({ tokens });
		assert.deepEqual(
			accounts.map((a) => [a.externalAccountId, a.displayName, a.handle]),
			[[sim.state.defaultChannel.id, "Sandbox Channel", "@sandboxchannel"]],
		);
	});

	test("refresh keeps the refresh token and yields a working access token; revoke ends the grant", async () => {
		const issued = sim.state.issueTokens(undefined, undefined, "yt-client");
		sim.state.expireAccessToken(issued.accessToken);
		const stale = {
			accessToken: issued.accessToken,
			refreshToken: issued.refreshToken,
			expiresAt: null,
			refreshTokenExpiresAt: null,
			scopes: [],
			extra: {},
		};
		await rejectsWith(
			yt.lookupAccounts({ tokens: stale }),
			"auth_expired",
			"authError",
		);

		const fresh = await yt.oauth.refresh({
			refreshToken: issued.refreshToken,
			accessToken: issued.accessToken,
		});
		assert.notEqual(fresh.accessToken, issued.accessToken);
		assert.equal(fresh.refreshToken, issued.refreshToken);
		assert.equal((await yt.lookupAccounts({ tokens: fresh })).length, 1);

		await yt.oauth.revoke({
			accessToken: fresh.accessToken,
			externalAccountId: sim.state.defaultChannel.id,
		});
		await rejectsWith(yt.lookupAccounts({ tokens: fresh }), "auth_expired");
		await rejectsWith(
			yt.oauth.refresh({
				refreshToken: issued.refreshToken,
				accessToken: fresh.accessToken,
			}),
			"auth_expired",
			"invalid_grant",
		);
		// revoking twice is not an error
		await yt.oauth.revoke({
			accessToken: fresh.accessToken,
			externalAccountId: sim.state.defaultChannel.id,
		});
	});

	test("resumable upload sends title, description and privacy; processing then published", async () => {
		const before = sim.ledger.posts.length;
		const result = await yt.publish(
			ctx,
			publishRequest({ categoryId: "27", madeForKids: false, tags: "a, b" }),
		);
		assert.equal(result.status, "processing");
		assert.equal(sim.ledger.posts.length, before + 1);
		assert.equal(sim.ledger.count("upload_init"), sim.ledger.count("publish"));
		const id = result.status === "processing" ? result.pollToken : "";
		const stored = sim.state.videos.get(id);
		assert.ok(stored);
		assert.equal(stored.resource.snippet.title, "Launch video");
		assert.equal(stored.resource.snippet.description, "A description");
		assert.equal(stored.resource.snippet.categoryId, "27");
		assert.deepEqual(stored.resource.snippet.tags, ["a", "b"]);
		assert.equal(stored.resource.status.privacyStatus, "unlisted");
		assert.equal(stored.bytes, 4096);

		const polled = await yt.pollPublish(ctx, id);
		assert.deepEqual(polled, {
			status: "published",
			providerPostId: id,
			url: `https://www.youtube.com/watch?v=${id}`,
		});
		assert.equal(
			await yt.fetchPermalink(ctx, id),
			`https://www.youtube.com/watch?v=${id}`,
		);
	});

	test("a video processed at once is published directly", async () => {
		sim.state.processingReads = 0;
		const result = await yt.publish(
			ctx,
			publishRequest({ privacyStatus: "public" }),
		);
		assert.equal(result.status, "published");
		assert.match(
			result.status === "published" ? (result.url ?? "") : "",
			/^https:\/\/www\.youtube\.com\/watch\?v=/,
		);
	});

	test("first comment, reply, comment listing and analytics", async () => {
		sim.state.processingReads = 0;
		const published = await yt.publish(ctx, publishRequest());
		assert.equal(published.status, "published");
		const videoId =
			published.status === "published" ? published.providerPostId : "";
		const first = await yt.postComment(ctx, {
			providerPostId: videoId,
			text: "Thanks for watching!",
		});
		const audience = sim.state.addAudienceComment(
			videoId,
			"Great video",
			"Fan",
		);
		const reply = await yt.postComment(ctx, {
			providerPostId: videoId,
			text: "Thank you!",
			replyToCommentId: audience,
		});
		assert.ok(reply.providerCommentId.startsWith(`${audience}.`));

		const comments = await yt.listComments(ctx, {
			providerPostId: videoId,
			limit: 10,
		});
		const byId = new Map(comments.map((c) => [c.providerCommentId, c]));
		assert.equal(comments.length, 3);
		assert.equal(
			byId.get(first.providerCommentId)?.body,
			"Thanks for watching!",
		);
		assert.equal(byId.get(audience)?.authorName, "Fan");
		assert.equal(
			byId.get(reply.providerCommentId)?.parentProviderCommentId,
			audience,
		);
		assert.equal(
			sim.ledger.comments.filter((c) => c.postId === videoId).length,
			2,
		);

		const stats = await yt.fetchPostAnalytics(ctx, { providerPostId: videoId });
		assert.deepEqual(stats.metrics, {
			views: 0,
			likes: 0,
			favorites: 0,
			comments: 1,
		});
	});

	test("tools: assignable categories from videoCategories.list and the privacy options", async () => {
		const categories = await yt.runTool(ctx, "channelCategories", {
			regionCode: "us",
		});
		assert.ok(
			categories.some((c) => c.id === "22" && c.title === "People & Blogs"),
		);
		assert.ok(
			!categories.some((c) => c.id === "18"),
			"non-assignable categories are left out",
		);
		const privacy = await yt.runTool(ctx, "privacyOptions", {});
		assert.deepEqual(
			privacy.map((p) => p.value),
			["public", "unlisted", "private"],
		);
		await rejectsWith(yt.runTool(ctx, "boardList", {}), "platform_rejected");
	});

	test("invalid content is user_content with the YouTube reason", async () => {
		await rejectsWith(
			yt.publish(ctx, publishRequest({ title: "t".repeat(101) })),
			"user_content",
			"invalidTitle",
		);
		await rejectsWith(
			yt.publish(ctx, publishRequest({ title: "a <b> title" })),
			"user_content",
			"invalidTitle",
		);
		// 2,000 characters but 6,000 bytes: the limit is in bytes
		await rejectsWith(
			yt.publish(ctx, publishRequest({}, "€".repeat(2000))),
			"user_content",
			"invalidDescription",
		);
		await rejectsWith(
			yt.publish(ctx, publishRequest({ categoryId: "18" })),
			"user_content",
			"invalidCategoryId",
		);
		await rejectsWith(
			yt.publish(ctx, { ...publishRequest(), media: [] }),
			"user_content",
		);
		assert.equal(
			sim.ledger.count("publish"),
			sim.ledger.posts.length,
			"no bytes were sent for rejected metadata",
		);
	});

	test("quota and rate limits are rate_limited with a retry delay", async () => {
		sim.failures.inject({ kind: "rate_limit", operation: "upload_init" });
		const quota = await rejectsWith(
			yt.publish(ctx, publishRequest()),
			"rate_limited",
			"quotaExceeded",
		);
		assert.ok(
			(quota.retryAfterSeconds ?? 0) > 0 &&
				(quota.retryAfterSeconds ?? 0) <= 86_400,
		);

		sim.failures.inject({
			kind: "rate_limit",
			operation: "channels",
			retryAfterSeconds: 7,
		});
		const short = await rejectsWith(
			yt.lookupAccounts({ tokens: { ...tokensOf(ctx) } }),
			"rate_limited",
			"rateLimitExceeded",
		);
		assert.equal(short.retryAfterSeconds, 7);

		sim.state.quotaRemaining = 1000; // less than the 1,600 units of an upload
		await rejectsWith(
			yt.publish(ctx, publishRequest()),
			"rate_limited",
			"quotaExceeded",
		);
	});

	test("expired tokens, forbidden channels and server errors", async () => {
		sim.failures.inject({ kind: "expired_token", operation: "publish" });
		await rejectsWith(
			yt.publish(ctx, publishRequest()),
			"auth_expired",
			"authError",
		);

		sim.state.defaultChannel.uploadsForbidden = true;
		try {
			await rejectsWith(
				yt.publish(ctx, publishRequest()),
				"platform_rejected",
				"forbidden",
			);
		} finally {
			sim.state.defaultChannel.uploadsForbidden = false;
		}

		sim.failures.inject({ kind: "server_error", operation: "videos_list" });
		await rejectsWith(
			yt.fetchPostAnalytics(ctx, { providerPostId: "abc" }),
			"transient",
			"backendError",
		);

		sim.failures.inject({ kind: "server_error", operation: "token" });
		await rejectsWith(
			yt.oauth.refresh({ refreshToken: "x", accessToken: "y" }),
			"transient",
		);
	});

	test("network failures: refused connection and timeouts on reads are transient", async () => {
		const offline = provider({ apiBaseUrl: "http://127.0.0.1:1/youtube/v3" });
		await rejectsWith(
			offline.lookupAccounts({ tokens: tokensOf(ctx) }),
			"transient",
		);

		sim.failures.inject({
			kind: "timeout",
			operation: "videos_list",
			delayMs: 3000,
		});
		await rejectsWith(
			provider({ timeoutMs: 150 }).fetchPostAnalytics(ctx, {
				providerPostId: "abc",
			}),
			"transient",
		);
	});

	test("a lost answer to the final upload PUT is unknown_outcome and exactly one video exists", async () => {
		const before = sim.ledger.posts.length;
		sim.failures.inject({ kind: "lost_response", operation: "publish" });
		await rejectsWith(
			yt.publish(ctx, publishRequest({ title: "Lost answer" })),
			"unknown_outcome",
		);
		const created = sim.ledger.posts.slice(before);
		assert.equal(created.length, 1);
		assert.equal(
			sim.state.videos.get(created[0]?.postId ?? "")?.resource.snippet.title,
			"Lost answer",
		);

		// a PUT that never gets an answer in time is also unknown_outcome (the upload may complete)
		sim.failures.inject({
			kind: "timeout",
			operation: "publish",
			delayMs: 3000,
		});
		await rejectsWith(
			provider({ timeoutMs: 60 }).publish(ctx, publishRequest()),
			"unknown_outcome",
		);
		assert.equal(sim.ledger.posts.length, before + 1);
	});
});

function tokensOf(ctx: ProviderCallContext) {
	return {
		accessToken: ctx.accessToken,
		refreshToken: null,
		expiresAt: null,
		refreshTokenExpiresAt: null,
		scopes: [],
		extra: {},
	};
}
