import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, describe, test } from "node:test";
import { createPinterestProvider } from "../../src/providers/pinterest/pinterest.provider.js";
import { PINTEREST_ENDPOINTS } from "../../src/providers/pinterest/pinterest.rules.js";
import {
	type ProviderCallContext,
	ProviderError,
	type PublishMediaItem,
	type SocialProvider,
} from "../../src/providers/provider.js";
import {
	type RunningPinterestSimulator,
	startPinterestSimulator,
} from "../../src/sandbox/simulators/pinterest.simulator.js";

const REDIRECT = "http://127.0.0.1:9/oauth/callback/pinterest";
// a 1x1 PNG
const PNG = Buffer.from(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
	"base64",
);

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

describe("pinterest adapter against the Pinterest simulator", () => {
	let sim: RunningPinterestSimulator;
	let images: Server;
	let imageBase: string;
	let imageHits = 0;
	let pin: SocialProvider;
	let ctx: ProviderCallContext;
	let boardId: string;

	function provider(
		overrides: {
			timeoutMs?: number;
			apiBaseUrl?: string;
			clientSecret?: string;
		} = {},
	): SocialProvider {
		return createPinterestProvider({
			clientId: "pin-app",
			clientSecret: "pin-secret",
			redirectUri: REDIRECT,
			...sim.baseUrls,
			timeoutMs: 2000,
			...overrides,
		});
	}

	const image = (path = "/pin.png", altText?: string): PublishMediaItem => ({
		kind: "image",
		mimeType: "image/png",
		bytes: PNG.length,
		url: `${imageBase}${path}`,
		altText,
		async open() {
			return (async function* () {
				yield PNG;
			})();
		},
	});

	const videoBytes = randomBytes(3000);
	const video: PublishMediaItem = {
		kind: "video",
		mimeType: "video/mp4",
		bytes: videoBytes.length,
		url: "http://127.0.0.1:9/unused.mp4",
		async open() {
			return (async function* () {
				yield videoBytes.subarray(0, 1200);
				yield videoBytes.subarray(1200);
			})();
		},
	};

	const request = (
		media: PublishMediaItem[],
		settings: Record<string, unknown> = {},
		text = "Pin description",
	) => ({
		text,
		media,
		settings: {
			boardId,
			title: "Pin title",
			link: "https://example.com/landing",
			...settings,
		},
		idempotencyKey: "tgt_1",
	});

	before(async () => {
		images = createServer((req, res) => {
			imageHits += 1;
			if (req.url === "/pin.png")
				res.writeHead(200, { "content-type": "image/png" }).end(PNG);
			else if (req.url === "/text")
				res
					.writeHead(200, { "content-type": "text/plain" })
					.end("not an image");
			else res.writeHead(404).end();
		});
		await new Promise<void>((resolve) =>
			images.listen(0, "127.0.0.1", resolve),
		);
		imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
		sim = await startPinterestSimulator();
		sim.state.client = { id: "pin-app", secret: "pin-secret" };
		pin = provider();
	});
	after(async () => {
		await sim.close();
		await new Promise((resolve) => images.close(resolve));
	});
	beforeEach(() => {
		sim.failures.clear();
		sim.state.mediaProcessingReads = 1;
		const { accessToken } = sim.state.issueTokens();
		ctx = {
			accessToken,
			externalAccountId: sim.state.defaultUser.id,
			channelSettings: {},
		};
		boardId = sim.state.boardsOf(sim.state.defaultUser.id)[0]?.id ?? "";
	});

	test("authorization URL: www.pinterest.com/oauth/ with comma-separated scopes and state", () => {
		const url = new URL(
			pin.oauth.authorizationUrl({
				state: "st-1",
				redirectUri: REDIRECT,
				scopes: pin.oauth.defaultScopes,
			}),
		);
		assert.equal(url.origin + url.pathname, `${sim.url}/web/oauth/`);
		assert.equal(url.searchParams.get("client_id"), "pin-app");
		assert.equal(url.searchParams.get("response_type"), "code");
		assert.equal(url.searchParams.get("redirect_uri"), REDIRECT);
		assert.equal(url.searchParams.get("state"), "st-1");
		assert.equal(
			url.searchParams.get("scope"),
			"boards:read,pins:read,pins:write,user_accounts:read",
		);
		assert.equal(pin.oauth.supportsPkce, false);
		const prod = createPinterestProvider({
			clientId: "c",
			clientSecret: "s",
			redirectUri: REDIRECT,
			...PINTEREST_ENDPOINTS,
			timeoutMs: 1000,
		});
		assert.ok(
			prod.oauth
				.authorizationUrl({ state: "s", redirectUri: REDIRECT, scopes: [] })
				.startsWith("https://www.pinterest.com/oauth/?"),
		);
	});

	test("consent redirect, code exchange with Basic client auth, account lookup", async () => {
		const res = await fetch(
			pin.oauth.authorizationUrl({
				state: "st-2",
				redirectUri: REDIRECT,
				scopes: pin.oauth.defaultScopes,
			}),
			{ redirect: "manual" },
		);
		assert.equal(res.status, 302);
		const back = new URL(res.headers.get("location") ?? "");
		assert.equal(back.searchParams.get("state"), "st-2");
		const code = back.searchParams.get("code") ?? "";

		await rejectsWith(
			provider({ clientSecret: "wrong" }).oauth.exchangeCode({
				code,
				redirectUri: REDIRECT,
			}),
			"auth_expired",
			"2",
		);
		const tokens = await pin.oauth.exchangeCode({
			code,
			redirectUri: REDIRECT,
		});
		assert.match(tokens.accessToken, /^pina_/);
		assert.match(tokens.refreshToken ?? "", /^pinr_/);
		assert.deepEqual(tokens.scopes, [
			"boards:read",
			"pins:read",
			"pins:write",
			"user_accounts:read",
		]);
		const day = 86_400_000;
		assert.ok(
			tokens.expiresAt &&
				Math.abs(tokens.expiresAt.getTime() - Date.now() - 30 * day) < 60_000,
		);
		assert.ok(
			tokens.refreshTokenExpiresAt &&
				tokens.refreshTokenExpiresAt.getTime() > Date.now() + 300 * day,
		);
		await rejectsWith(
			pin.oauth.exchangeCode({ code, redirectUri: REDIRECT }),
			"auth_expired",
		);

		const [account, ...others] = await pin.lookupAccounts({ tokens });
		assert.equal(others.length, 0);
		assert.deepEqual(account, {
			externalAccountId: sim.state.defaultUser.id,
			displayName: "Sandbox Pinner",
			handle: "sandbox_pinner",
			avatarUrl: sim.state.defaultUser.profileImage,
		});
	});

	test("refresh keeps the refresh token; a grant removed by the user is auth_expired; revoke is local", async () => {
		const issued = sim.state.issueTokens(undefined, undefined, "pin-app");
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
			pin.lookupAccounts({ tokens: stale }),
			"auth_expired",
			"2",
		);
		const fresh = await pin.oauth.refresh({
			refreshToken: issued.refreshToken,
			accessToken: issued.accessToken,
		});
		assert.notEqual(fresh.accessToken, issued.accessToken);
		assert.equal(fresh.refreshToken, issued.refreshToken);
		assert.equal((await pin.lookupAccounts({ tokens: fresh })).length, 1);

		assert.equal(pin.oauth.supportsRevoke, false);
		await pin.oauth.revoke({
			accessToken: fresh.accessToken,
			externalAccountId: sim.state.defaultUser.id,
		});
		sim.state.revokeUserApp(sim.state.defaultUser.id);
		await rejectsWith(
			pin.oauth.refresh({
				refreshToken: issued.refreshToken,
				accessToken: fresh.accessToken,
			}),
			"auth_expired",
		);
	});

	test("image Pin on a board: Pinterest fetches the image URL once; permalink and analytics", async () => {
		const hits = imageHits;
		const posts = sim.ledger.posts.length;
		const result = await pin.publish(
			ctx,
			request([image("/pin.png", "A 1x1 pixel")]),
		);
		assert.equal(result.status, "published");
		const id = result.status === "published" ? result.providerPostId : "";
		assert.equal(
			result.status === "published" ? result.url : null,
			`https://www.pinterest.com/pin/${id}/`,
		);
		assert.equal(imageHits, hits + 1);
		assert.equal(sim.ledger.posts.length, posts + 1);
		const stored = sim.state.pins.get(id)?.resource;
		assert.equal(stored?.board_id, boardId);
		assert.equal(stored?.title, "Pin title");
		assert.equal(stored?.description, "Pin description");
		assert.equal(stored?.link, "https://example.com/landing");
		assert.equal(stored?.alt_text, "A 1x1 pixel");

		assert.equal(
			await pin.fetchPermalink(ctx, id),
			`https://www.pinterest.com/pin/${id}/`,
		);
		const metrics = sim.state.pins.get(id)?.metrics;
		if (metrics)
			Object.assign(metrics, {
				IMPRESSION: 120,
				SAVE: 4,
				PIN_CLICK: 9,
				OUTBOUND_CLICK: 3,
			});
		const stats = await pin.fetchPostAnalytics(ctx, { providerPostId: id });
		assert.deepEqual(stats.metrics, {
			impressions: 120,
			saves: 4,
			pinClicks: 9,
			outboundClicks: 3,
		});
	});

	test("video Pin: register, upload to upload_url, processing, then the Pin is created on poll", async () => {
		const posts = sim.ledger.posts.length;
		const first = await pin.publish(
			ctx,
			request([video], { title: "Video pin" }),
		);
		assert.equal(first.status, "processing");
		assert.equal(
			sim.ledger.posts.length,
			posts,
			"no Pin before the video is processed",
		);
		const uploaded = [...sim.state.media.values()].at(-1);
		assert.equal(uploaded?.bytes, videoBytes.length);

		const done = await pin.pollPublish(
			ctx,
			first.status === "processing" ? first.pollToken : "",
		);
		assert.equal(done.status, "published");
		const stored = sim.state.pins.get(
			done.status === "published" ? done.providerPostId : "",
		)?.resource;
		assert.equal(
			(stored?.media as { media_type?: string } | undefined)?.media_type,
			"video",
		);
		assert.equal(stored?.title, "Video pin");
		assert.equal(sim.ledger.posts.length, posts + 1);

		sim.state.mediaProcessingReads = 0;
		const direct = await pin.publish(
			ctx,
			request([video], { coverImageUrl: `${imageBase}/pin.png` }),
		);
		assert.equal(direct.status, "published");
		await rejectsWith(pin.pollPublish(ctx, "not-a-token"), "platform_rejected");
	});

	test("boardList follows the bookmark across pages", async () => {
		const owner = sim.state.defaultUser.id;
		const extra = Array.from({ length: 260 }, (_, i) => ({
			id: `77${i}`,
			ownerId: owner,
			name: `Board ${i}`,
			description: "",
			privacy: "PUBLIC" as const,
			pinCount: 0,
		}));
		sim.state.boards.push(...extra);
		try {
			const calls = sim.ledger.count("boards");
			const boards = await pin.runTool(ctx, "boardList", {});
			assert.equal(boards.length, 263);
			assert.equal(sim.ledger.count("boards"), calls + 2);
			assert.deepEqual(boards[0], {
				id: boardId,
				name: "Sandbox Ideas",
				description: "Ideas board",
				privacy: "PUBLIC",
				pinCount: boards[0]?.pinCount,
			});
			assert.ok(boards.some((b) => b.privacy === "SECRET"));
		} finally {
			sim.state.boards.splice(sim.state.boards.length - extra.length);
		}
		await rejectsWith(
			pin.runTool(ctx, "channelCategories", {}),
			"platform_rejected",
		);
	});

	test("comments are not part of API v5: platform_rejected", async () => {
		await rejectsWith(
			pin.postComment(ctx, { providerPostId: "1", text: "hi" }),
			"platform_rejected",
		);
		await rejectsWith(
			pin.listComments(ctx, { providerPostId: "1", limit: 5 }),
			"platform_rejected",
		);
	});

	test("content errors: broken or unreachable image, unknown board, long title", async () => {
		const posts = sim.ledger.posts.length;
		await rejectsWith(
			pin.publish(ctx, request([image("/missing.png")])),
			"user_content",
			"4",
		);
		await rejectsWith(
			pin.publish(ctx, request([image("/text")])),
			"user_content",
			"4",
		);
		await rejectsWith(
			pin.publish(
				ctx,
				request([{ ...image(), url: "http://127.0.0.1:1/unreachable.png" }]),
			),
			"user_content",
			"4",
		);
		await rejectsWith(
			pin.publish(ctx, request([image()], { boardId: "123" })),
			"user_content",
			"5",
		);
		await rejectsWith(
			pin.publish(ctx, request([image()], { title: "x".repeat(101) })),
			"user_content",
			"1",
		);
		await rejectsWith(
			pin.publish(ctx, request([image()], {}, "d".repeat(501))),
			"user_content",
			"1",
		);
		await rejectsWith(
			pin.publish(ctx, request([image()], { boardId: undefined })),
			"user_content",
		);
		assert.equal(sim.ledger.posts.length, posts);
	});

	test("auth, scope, rate-limit and server errors", async () => {
		sim.failures.inject({ kind: "expired_token", operation: "publish" });
		await rejectsWith(
			pin.publish(ctx, request([image()])),
			"auth_expired",
			"2",
		);

		const narrow = sim.state.issueTokens(undefined, ["user_accounts:read"]);
		await rejectsWith(
			pin.runTool({ ...ctx, accessToken: narrow.accessToken }, "boardList", {}),
			"platform_rejected",
			"3",
		);

		sim.failures.inject({
			kind: "rate_limit",
			operation: "publish",
			retryAfterSeconds: 12,
		});
		const limited = await rejectsWith(
			pin.publish(ctx, request([image()])),
			"rate_limited",
			"8",
		);
		assert.equal(limited.retryAfterSeconds, 12);
		sim.failures.inject({ kind: "rate_limit", operation: "boards" });
		assert.equal(
			(await rejectsWith(pin.runTool(ctx, "boardList", {}), "rate_limited"))
				.retryAfterSeconds,
			60,
		);
		sim.failures.inject({ kind: "rate_limit", operation: "token" });
		await rejectsWith(
			pin.oauth.refresh({ refreshToken: "pinr_x", accessToken: "a" }),
			"rate_limited",
		);

		sim.failures.inject({ kind: "server_error", operation: "user_account" });
		await rejectsWith(
			pin.lookupAccounts({
				tokens: {
					accessToken: ctx.accessToken,
					refreshToken: null,
					expiresAt: null,
					refreshTokenExpiresAt: null,
					scopes: [],
					extra: {},
				},
			}),
			"transient",
			"7",
		);
		sim.failures.inject({ kind: "server_error", operation: "media_upload" });
		await rejectsWith(pin.publish(ctx, request([video])), "transient");
	});

	test("network: refused connection and read timeouts are transient", async () => {
		await rejectsWith(
			provider({ apiBaseUrl: "http://127.0.0.1:1/v5" }).runTool(
				ctx,
				"boardList",
				{},
			),
			"transient",
		);
		sim.failures.inject({
			kind: "timeout",
			operation: "pin_analytics",
			delayMs: 3000,
		});
		await rejectsWith(
			provider({ timeoutMs: 150 }).fetchPostAnalytics(ctx, {
				providerPostId: "1",
			}),
			"transient",
		);
	});

	test("a lost answer to Pin creation is unknown_outcome and exactly one Pin exists", async () => {
		const posts = sim.ledger.posts.length;
		sim.failures.inject({ kind: "lost_response", operation: "publish" });
		await rejectsWith(
			pin.publish(ctx, request([image()], { title: "Lost answer" })),
			"unknown_outcome",
		);
		const created = sim.ledger.posts.slice(posts);
		assert.equal(created.length, 1);
		assert.equal(
			sim.state.pins.get(created[0]?.postId ?? "")?.resource.title,
			"Lost answer",
		);

		// same for the video Pin created from pollPublish
		sim.state.mediaProcessingReads = 1;
		const pending = await pin.publish(ctx, request([video]));
		sim.failures.inject({ kind: "lost_response", operation: "publish" });
		await rejectsWith(
			pin.pollPublish(
				ctx,
				pending.status === "processing" ? pending.pollToken : "",
			),
			"unknown_outcome",
		);
		assert.equal(sim.ledger.posts.length, posts + 2);
	});
});
