/**
 * TikTok adapter: Login Kit v2 OAuth, user info, Direct Post (creator_info -> init -> FILE_UPLOAD chunks ->
 * status fetch), photo posts (PULL_FROM_URL), video metrics, and the privacyOptions tool.
 * Doc links and the error mapping live in tiktok.client.ts.
 */
import {
	type OAuthTokens,
	type ProviderAppConfig,
	type ProviderCallContext,
	ProviderError,
	type PublishRequest,
	type PublishResult,
	type SocialProvider,
} from "../provider.js";
import {
	TiktokClient,
	type TiktokCreatorInfo,
	type TiktokTokenResponse,
	tiktokError,
} from "./tiktok.client.js";
import {
	TIKTOK_CAPABILITY,
	TIKTOK_DEFAULT_SCOPES,
	TIKTOK_PRIVACY_LABELS,
	TIKTOK_VALIDATION_RULES,
} from "./tiktok.rules.js";
import { planChunks, uploadVideoChunks } from "./tiktok.upload.js";

export interface TiktokProviderOptions {
	/** preferred FILE_UPLOAD chunk size (clamped to the documented 5-64 MB) */
	chunkSizeBytes?: number;
	/** delay suggested to the engine before the first status fetch */
	pollAfterMs?: number;
}

const PENDING_STATUSES = new Set([
	"PROCESSING_UPLOAD",
	"PROCESSING_DOWNLOAD",
	"SEND_TO_USER_INBOX",
]);

function toTokens(t: TiktokTokenResponse, now = Date.now()): OAuthTokens {
	return {
		accessToken: t.access_token,
		refreshToken: t.refresh_token ?? null,
		expiresAt: t.expires_in ? new Date(now + t.expires_in * 1000) : null,
		refreshTokenExpiresAt: t.refresh_expires_in
			? new Date(now + t.refresh_expires_in * 1000)
			: null,
		scopes: (t.scope ?? "")
			.split(",")
			.map((s) => s.trim())
			.filter(Boolean),
		extra: t.open_id ? { open_id: t.open_id } : {},
	};
}

function userContent(message: string, providerCode: string): ProviderError {
	return new ProviderError({
		platform: "tiktok",
		category: "user_content",
		message,
		providerCode,
	});
}

function bool(settings: Record<string, unknown>, key: string): boolean {
	return settings[key] === true;
}

interface PollState {
	publishId: string;
	username: string | null;
}

const encodePoll = (s: PollState) =>
	Buffer.from(JSON.stringify(s)).toString("base64url");
function decodePoll(token: string): PollState {
	try {
		const parsed = JSON.parse(
			Buffer.from(token, "base64url").toString("utf8"),
		) as PollState;
		if (typeof parsed.publishId === "string") return parsed;
	} catch {
		// a bare publish_id is accepted too
	}
	return { publishId: token, username: null };
}

export function createTiktokProvider(
	config: ProviderAppConfig,
	options: TiktokProviderOptions = {},
): SocialProvider {
	const client = new TiktokClient(config);
	const pollAfterMs = options.pollAfterMs ?? 5000;

	/** Checks the target settings against the creator's live options, as the Direct Post UX guidelines require. */
	function checkAgainstCreator(
		request: PublishRequest,
		creator: TiktokCreatorInfo,
	): string {
		const privacy = request.settings.privacy_level;
		if (
			typeof privacy !== "string" ||
			!creator.privacy_level_options.includes(privacy)
		) {
			throw userContent(
				`privacy_level ${String(privacy)} is not offered to this creator (${creator.privacy_level_options.join(", ")})`,
				"privacy_level_option_mismatch",
			);
		}
		if (
			bool(request.settings, "brand_content_toggle") &&
			privacy === "SELF_ONLY"
		) {
			throw userContent(
				"branded content cannot be posted with SELF_ONLY visibility",
				"invalid_params",
			);
		}
		const video = request.media.find((m) => m.kind === "video");
		if (
			video?.durationSeconds !== undefined &&
			video.durationSeconds > creator.max_video_post_duration_sec
		) {
			throw userContent(
				`video lasts ${video.durationSeconds}s, this creator may post at most ${creator.max_video_post_duration_sec}s`,
				"duration_check_failed",
			);
		}
		return privacy;
	}

	async function publishVideo(
		ctx: ProviderCallContext,
		request: PublishRequest,
		creator: TiktokCreatorInfo,
		privacy: string,
	) {
		const video = request.media[0];
		if (!video) throw userContent("no video to upload", "invalid_params");
		const s = request.settings;
		const plan = planChunks(video.bytes, options.chunkSizeBytes);
		const postInfo: Record<string, unknown> = {
			title: request.text,
			privacy_level: privacy,
			// a creator-level "No one" setting cannot be overridden by the post
			disable_comment: bool(s, "disable_comment") || creator.comment_disabled,
			disable_duet: bool(s, "disable_duet") || creator.duet_disabled,
			disable_stitch: bool(s, "disable_stitch") || creator.stitch_disabled,
			brand_content_toggle: bool(s, "brand_content_toggle"),
			brand_organic_toggle: bool(s, "brand_organic_toggle"),
		};
		if (typeof s.video_cover_timestamp_ms === "number")
			postInfo.video_cover_timestamp_ms = s.video_cover_timestamp_ms;
		if (typeof s.is_aigc === "boolean") postInfo.is_aigc = s.is_aigc;
		const init = await client.initVideo(
			ctx.accessToken,
			{
				post_info: postInfo,
				source_info: {
					source: "FILE_UPLOAD",
					video_size: plan.videoSize,
					chunk_size: plan.chunkSize,
					total_chunk_count: plan.totalChunkCount,
				},
			},
			ctx.signal,
		);
		if (!init.upload_url)
			throw tiktokError({
				code: "invalid_response",
				message: "init answered without upload_url",
				httpStatus: 200,
			});
		await uploadVideoChunks({
			client,
			uploadUrl: init.upload_url,
			plan,
			mimeType: video.mimeType,
			source: await video.open(),
			signal: ctx.signal,
		});
		return init.publish_id;
	}

	async function publishPhotos(
		ctx: ProviderCallContext,
		request: PublishRequest,
		creator: TiktokCreatorInfo,
		privacy: string,
	) {
		const s = request.settings;
		const title = typeof s.title === "string" ? s.title : "";
		const init = await client.initContent(
			ctx.accessToken,
			{
				post_info: {
					title,
					description: request.text,
					privacy_level: privacy,
					disable_comment:
						bool(s, "disable_comment") || creator.comment_disabled,
					auto_add_music: bool(s, "auto_add_music"),
					brand_content_toggle: bool(s, "brand_content_toggle"),
					brand_organic_toggle: bool(s, "brand_organic_toggle"),
				},
				source_info: {
					source: "PULL_FROM_URL",
					photo_cover_index: 0,
					photo_images: request.media.map((m) => m.url),
				},
				post_mode: "DIRECT_POST",
				media_type: "PHOTO",
			},
			ctx.signal,
		);
		return init.publish_id;
	}

	async function creatorInfo(ctx: ProviderCallContext) {
		return client.creatorInfo(ctx.accessToken, ctx.signal);
	}

	const provider: SocialProvider = {
		platform: "tiktok",
		capability: TIKTOK_CAPABILITY,
		rules: TIKTOK_VALIDATION_RULES,
		oauth: {
			// Login Kit for Web uses the confidential authorization-code flow without PKCE
			supportsPkce: false,
			supportsRefresh: true,
			supportsRevoke: true,
			defaultScopes: TIKTOK_DEFAULT_SCOPES,
			authorizationUrl(input) {
				const url = new URL(
					`${config.authBaseUrl.replace(/\/$/, "")}/v2/auth/authorize/`,
				);
				url.searchParams.set("client_key", config.clientId ?? "");
				url.searchParams.set("scope", input.scopes.join(","));
				url.searchParams.set("response_type", "code");
				url.searchParams.set("redirect_uri", input.redirectUri);
				url.searchParams.set("state", input.state);
				return url.toString();
			},
			async exchangeCode(input) {
				return toTokens(
					await client.exchangeCode(
						input.code,
						input.redirectUri,
						input.codeVerifier,
					),
				);
			},
			async refresh(input) {
				if (!input.refreshToken) {
					throw new ProviderError({
						platform: "tiktok",
						category: "auth_expired",
						message: "no TikTok refresh token stored",
					});
				}
				return toTokens(await client.refresh(input.refreshToken));
			},
			async revoke(input) {
				await client.revoke(input.accessToken);
			},
		},

		async lookupAccounts({ tokens }) {
			const fields = ["open_id", "union_id", "avatar_url", "display_name"];
			// username needs user.info.profile; asking for it without the scope fails the whole call
			if (
				tokens.scopes.length === 0 ||
				tokens.scopes.includes("user.info.profile")
			)
				fields.push("username");
			const data = await client.userInfo(tokens.accessToken, fields);
			const user = data.user ?? {};
			const id = user.open_id ?? tokens.extra.open_id;
			if (!id)
				throw tiktokError({
					code: "invalid_response",
					message: "user info without open_id",
					httpStatus: 200,
				});
			return [
				{
					externalAccountId: id,
					displayName: user.display_name ?? user.username ?? id,
					handle: user.username ?? null,
					avatarUrl: user.avatar_url ?? null,
				},
			];
		},

		async publish(ctx, request) {
			const videos = request.media.filter((m) => m.kind === "video");
			const images = request.media.filter((m) => m.kind === "image");
			if (request.media.length === 0)
				throw userContent(
					"a TikTok post needs one video or 1-35 photos",
					"invalid_params",
				);
			if (videos.length > 0 && (videos.length > 1 || images.length > 0)) {
				throw userContent(
					"a TikTok post carries exactly one video, or photos only",
					"invalid_params",
				);
			}
			if (request.media.some((m) => m.kind === "gif") || images.length > 35) {
				throw userContent(
					"TikTok photo posts take 1-35 JPEG or WebP images",
					"invalid_params",
				);
			}
			const creator = await creatorInfo(ctx);
			const privacy = checkAgainstCreator(request, creator);
			const publishId =
				videos.length === 1
					? await publishVideo(ctx, request, creator, privacy)
					: await publishPhotos(ctx, request, creator, privacy);
			return {
				status: "processing",
				pollToken: encodePoll({
					publishId,
					username: creator.creator_username || null,
				}),
				pollAfterMs,
			};
		},

		async pollPublish(ctx, pollToken): Promise<PublishResult> {
			const poll = decodePoll(pollToken);
			const status = await client.statusFetch(
				ctx.accessToken,
				poll.publishId,
				ctx.signal,
			);
			if (status.status === "PUBLISH_COMPLETE") {
				const postId = status.publicaly_available_post_id?.[0];
				// private (SELF_ONLY) posts are never given a public post id
				if (postId === undefined)
					return {
						status: "published",
						providerPostId: poll.publishId,
						url: null,
					};
				const id = String(postId);
				const url = poll.username
					? `https://www.tiktok.com/@${poll.username}/video/${id}`
					: null;
				return { status: "published", providerPostId: id, url };
			}
			if (status.status === "FAILED") {
				throw tiktokError({
					code: status.fail_reason ?? "internal",
					message: `publish ${poll.publishId} failed`,
					body: status,
				});
			}
			if (PENDING_STATUSES.has(status.status)) {
				return { status: "processing", pollToken, pollAfterMs };
			}
			throw tiktokError({
				code: "unknown_status",
				message: `unexpected status ${status.status}`,
				body: status,
			});
		},

		async fetchPermalink(ctx, providerPostId) {
			const data = await client.queryVideos(
				ctx.accessToken,
				[providerPostId],
				["id", "share_url"],
				ctx.signal,
			);
			const video = data.videos?.find((v) => String(v.id) === providerPostId);
			return typeof video?.share_url === "string" ? video.share_url : null;
		},

		async postComment() {
			throw new ProviderError({
				platform: "tiktok",
				category: "platform_rejected",
				message: "the TikTok API offers no endpoint to post comments",
				providerCode: "unsupported",
			});
		},

		async listComments() {
			throw new ProviderError({
				platform: "tiktok",
				category: "platform_rejected",
				message:
					"the TikTok API offers no endpoint to read comments of a creator post",
				providerCode: "unsupported",
			});
		},

		async fetchPostAnalytics(ctx, input) {
			const fields = [
				"id",
				"view_count",
				"like_count",
				"comment_count",
				"share_count",
			];
			const data = await client.queryVideos(
				ctx.accessToken,
				[input.providerPostId],
				fields,
				ctx.signal,
			);
			const video = data.videos?.find(
				(v) => String(v.id) === input.providerPostId,
			);
			if (!video)
				throw userContent(
					`video ${input.providerPostId} not found for this creator`,
					"video_not_found",
				);
			const metric = (k: string) =>
				typeof video[k] === "number" ? (video[k] as number) : 0;
			return {
				capturedAt: new Date().toISOString(),
				metrics: {
					views: metric("view_count"),
					likes: metric("like_count"),
					comments: metric("comment_count"),
					shares: metric("share_count"),
				},
			};
		},

		async runTool(ctx, toolName) {
			if (toolName !== "privacyOptions") {
				throw new ProviderError({
					platform: "tiktok",
					category: "platform_rejected",
					message: `TikTok has no ${toolName} tool`,
				});
			}
			const creator = await creatorInfo(ctx);
			return creator.privacy_level_options.map((value) => ({
				value,
				label: TIKTOK_PRIVACY_LABELS[value] ?? value,
				creatorUsername: creator.creator_username,
				creatorNickname: creator.creator_nickname,
				commentDisabled: creator.comment_disabled,
				duetDisabled: creator.duet_disabled,
				stitchDisabled: creator.stitch_disabled,
				maxVideoPostDurationSec: creator.max_video_post_duration_sec,
			}));
		},
	};
	return provider;
}
