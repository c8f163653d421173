/**
 * Write side of the simulated Graph hosts: Instagram and Threads containers and publishing, Facebook
 * feed/photos/videos, comments and replies, permission revocation. Media URLs are fetched like the
 * platforms do ("we cURL media"), so an unreachable URL fails the container with the platform's error.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import {
	authenticate,
	handler,
	invalidParam,
	params,
	requireScope,
	type RouteContext,
	SimError,
	unsupported,
} from "./sim-http.js";
import { shortcode } from "./sim-render.js";
import { resolveObject } from "./sim-read.routes.js";
import {
	emptyStats,
	type Family,
	type SimContainer,
	type SimPost,
	type SimToken,
} from "./sim-state.js";

const DAY_MS = 24 * 3600 * 1000;

export async function fetchMedia(url: string | undefined): Promise<boolean> {
	if (!url) return false;
	try {
		const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
		await res.arrayBuffer();
		return res.ok;
	} catch {
		return false;
	}
}

const PUBLISH_SCOPE: Record<Family, string> = {
	facebook: "instagram_content_publish",
	instagram: "instagram_business_content_publish",
	threads: "threads_content_publish",
};
const COMMENT_SCOPE: Record<Family, string> = {
	facebook: "instagram_manage_comments",
	instagram: "instagram_business_manage_comments",
	threads: "threads_manage_replies",
};
const TEXT_LIMIT: Record<Family, number> = {
	facebook: 2200,
	instagram: 2200,
	threads: 500,
};

export function registerMetaWriteRoutes(
	app: FastifyInstance,
	ctx: RouteContext,
	family: Family,
	prefix: string,
	videoPrefix?: string,
): void {
	const { state, ledger } = ctx;
	const delay = () => state.now() + state.containerDelayMs;

	/** the IG or Threads account the token may publish as */
	const actingAccount = (token: SimToken, id: string) => {
		const target = resolveObject(state, family, token, id, "POST");
		const allowed =
			token.subjectId === target.id ||
			(token.kind === "user" &&
				[...state.objects.values()].some(
					(o) =>
						o.kind === "page" &&
						o.ownerId === token.subjectId &&
						o.igId === target.id,
				)) ||
			(token.kind === "page" &&
				state.get(token.subjectId)?.kind === "page" &&
				(state.get(token.subjectId) as { igId: string | null }).igId ===
					target.id);
		if (
			!allowed ||
			(target.kind !== "ig_user" && target.kind !== "threads_user")
		)
			throw unsupported("POST", id);
		return target;
	};

	const recordPost = (post: SimPost) => {
		state.put(post);
		ledger.posts.push({
			platform: post.platform,
			accountId: post.ownerId,
			postId: post.id,
			text: post.text,
			mediaCount: post.mediaCount,
			at: Date.now(),
		});
	};

	const checkQuota = (ownerId: string) => {
		const limit =
			family === "threads"
				? state.publishLimits.threads
				: state.publishLimits.instagram;
		if (state.postsOf(ownerId, state.now() - DAY_MS).length >= limit) {
			throw new SimError(400, {
				message: "Application request limit reached",
				code: 9,
				subcode: 2207042,
				type: "OAuthException",
				userTitle: "Cannot publish",
				userMessage:
					"You reached the maximum number of posts that is allowed to be published by the Content Publishing API.",
			});
		}
	};

	/** container for Instagram (/media) or Threads (/threads) */
	const createContainer = async (
		req: FastifyRequest,
		edge: "media" | "threads",
	) => {
		const token = authenticate(state, req, family);
		const { id } = req.params as { id: string };
		const owner = actingAccount(token, id);
		requireScope(token, PUBLISH_SCOPE[family], 10);
		const p = params(req);
		const text = (edge === "media" ? p.caption : p.text) ?? "";
		if ([...text].length > TEXT_LIMIT[family]) {
			throw invalidParam(
				`The ${edge === "media" ? "caption" : "text"} is too long`,
				undefined,
				`The text can be at most ${TEXT_LIMIT[family]} characters.`,
			);
		}
		const isChild = p.is_carousel_item === "true";
		let mediaType = (
			p.media_type ?? (p.video_url ? "VIDEO" : p.image_url ? "IMAGE" : "")
		).toUpperCase();
		if (edge === "threads" && !mediaType)
			throw invalidParam("media_type is required");
		if (edge === "media" && !mediaType)
			throw invalidParam("The parameter image_url or video_url is required");
		if (p.reply_to_id) {
			requireScope(token, "threads_manage_replies", 10);
			const parent = state.get(p.reply_to_id);
			if (parent?.kind !== "post" || parent.platform !== "threads")
				throw unsupported("POST", p.reply_to_id);
		}
		const container: SimContainer = {
			kind: "container",
			id: state.nextId(),
			family,
			ownerId: owner.id,
			mediaType: mediaType === "REELS" ? "VIDEO" : mediaType,
			text,
			children: [],
			replyToId: p.reply_to_id ?? null,
			state: "IN_PROGRESS",
			readyAt: null,
			error: null,
			createdAt: state.now(),
		};
		if (mediaType === "CAROUSEL") {
			const children = (p.children ?? "").split(",").filter(Boolean);
			const max = family === "threads" ? 20 : 10;
			if (children.length < 2 || children.length > max)
				throw invalidParam(
					`A carousel needs 2 to ${max} children`,
					undefined,
					`Carousels hold 2 to ${max} items.`,
				);
			for (const childId of children) {
				const child = state.get(childId);
				if (child?.kind !== "container" || child.ownerId !== owner.id)
					throw unsupported("POST", childId);
				if (state.containerStatus(child) !== "FINISHED") {
					throw new SimError(400, {
						message: "Media ID is not available",
						code: 9007,
						subcode: 2207027,
						userTitle: "Media not ready",
						userMessage:
							"The media is not ready for publishing, please wait for a moment.",
					});
				}
			}
			container.children = children;
			container.readyAt = state.now();
		} else if (mediaType === "TEXT") {
			if (!text)
				throw invalidParam("The parameter text is required for TEXT posts");
			container.readyAt = state.now();
		} else if (
			["IMAGE", "STORIES"].includes(mediaType) &&
			p.image_url &&
			edge === "media"
		) {
			// Instagram fetches images while creating the container and answers the failure directly
			if (!(await fetchMedia(p.image_url))) {
				throw new SimError(400, {
					message: "Only photo or video can be accepted as media type.",
					code: 9004,
					subcode: 2207052,
					userTitle: "Media download has failed.",
					userMessage: `The media could not be fetched from this uri: ${p.image_url}`,
				});
			}
			container.readyAt = delay();
		} else if (["IMAGE", "VIDEO", "REELS", "STORIES"].includes(mediaType)) {
			const url =
				mediaType === "IMAGE" || (mediaType === "STORIES" && p.image_url)
					? p.image_url
					: p.video_url;
			if (!url)
				throw invalidParam(
					`The parameter ${mediaType === "IMAGE" ? "image_url" : "video_url"} is required`,
				);
			// videos (and all Threads media) are fetched after the answer; the container reports the outcome
			void fetchMedia(url).then((ok) => {
				if (ok) container.readyAt = delay();
				else {
					container.state = "ERROR";
					container.error =
						family === "threads"
							? mediaType === "VIDEO"
								? "FAILED_DOWNLOADING_VIDEO"
								: "UNKNOWN"
							: "Error: 2207052 Media download has failed. The media URI does not meet our requirements.";
				}
			});
		} else throw invalidParam(`Unsupported media_type ${mediaType}`);
		if (isChild) container.mediaType = `${container.mediaType}:CHILD`;
		state.put(container);
		return { body: { id: container.id } };
	};

	const publishContainer = (req: FastifyRequest) => {
		const token = authenticate(state, req, family);
		const { id } = req.params as { id: string };
		const owner = actingAccount(token, id);
		requireScope(token, PUBLISH_SCOPE[family], 10);
		const c = state.get(params(req).creation_id ?? "");
		if (
			c?.kind !== "container" ||
			c.ownerId !== owner.id ||
			c.mediaType.endsWith(":CHILD")
		)
			throw invalidParam("The parameter creation_id is invalid", 2207008);
		const status = state.containerStatus(c);
		if (status === "PUBLISHED")
			throw invalidParam("This media has already been published", 2207008);
		if (status !== "FINISHED") {
			throw new SimError(400, {
				message: "Media ID is not available",
				code: 9007,
				subcode: 2207027,
				userTitle: "Media not ready",
				userMessage:
					"The media is not ready for publishing, please wait for a moment.",
			});
		}
		if (!c.replyToId) checkQuota(owner.id);
		const postId = state.nextId();
		const platform =
			family === "threads"
				? "threads"
				: family === "instagram"
					? "instagram_standalone"
					: "instagram_business";
		const username = owner.username;
		recordPost({
			kind: "post",
			id: postId,
			platform,
			ownerId: owner.id,
			text: c.text,
			mediaCount: c.mediaType === "TEXT" ? 0 : Math.max(1, c.children.length),
			mediaType:
				c.mediaType === "STORIES"
					? "STORY"
					: c.mediaType === "CAROUSEL"
						? "CAROUSEL_ALBUM"
						: c.mediaType,
			permalink:
				family === "threads"
					? `https://www.threads.net/@${username}/post/${shortcode(postId)}`
					: `https://www.instagram.com/p/${shortcode(postId)}/`,
			createdAt: state.now(),
			replyToId: c.replyToId,
			videoState: null,
			readyAt: null,
			stats: emptyStats(),
		});
		c.state = "PUBLISHED";
		return { body: { id: postId } };
	};

	if (family !== "threads") {
		app.post(
			`${prefix}/:id/media`,
			handler(ctx, family, "container", (req) => createContainer(req, "media")),
		);
		app.post(
			`${prefix}/:id/media_publish`,
			handler(ctx, family, "publish", publishContainer),
		);
	} else {
		app.post(
			`${prefix}/:id/threads`,
			handler(ctx, family, "container", (req) =>
				createContainer(req, "threads"),
			),
		);
		app.post(
			`${prefix}/:id/threads_publish`,
			handler(ctx, family, "publish", publishContainer),
		);
	}

	/** Facebook: POST /{post-id|comment-id}/comments with a page token */
	const facebookComment = (req: FastifyRequest) => {
		const token = authenticate(state, req, family);
		const { id } = req.params as { id: string };
		const target = resolveObject(state, family, token, id, "POST");
		const message = params(req).message;
		if (!message) throw invalidParam("The parameter message is required");
		let postId: string;
		let parentId: string | null = null;
		if (target.kind === "post" && target.platform === "facebook_page")
			postId = target.id;
		else if (target.kind === "comment") {
			postId = target.postId;
			parentId = target.id;
		} else throw unsupported("POST", `${id}/comments`);
		requireScope(token, "pages_manage_engagement");
		const post = state.get(postId) as SimPost;
		const page = state.get(post.ownerId);
		const created = state.put({
			kind: "comment",
			id: `${postId.split("_").pop()}_${state.nextId()}`,
			postId,
			parentId,
			text: message,
			authorId: post.ownerId,
			authorName: page?.kind === "page" ? page.name : "Page",
			createdAt: state.now(),
		});
		ledger.comments.push({
			postId,
			commentId: created.id,
			text: message,
			at: Date.now(),
		});
		return { body: { id: created.id } };
	};

	// Instagram comments and replies; on the Facebook host, Page posts and their comments go to facebookComment
	if (family !== "threads") {
		const comment = (req: FastifyRequest, asReply: boolean) => {
			const token = authenticate(state, req, family);
			const { id } = req.params as { id: string };
			const target = resolveObject(state, family, token, id, "POST");
			const message = params(req).message;
			if (!message) throw invalidParam("The parameter message is required");
			let postId: string;
			let parentId: string | null = null;
			if (
				!asReply &&
				target.kind === "post" &&
				target.platform.startsWith("instagram")
			)
				postId = target.id;
			else if (asReply && target.kind === "comment") {
				postId = target.postId;
				parentId = target.parentId ?? target.id;
			} else
				throw unsupported("POST", `${id}/${asReply ? "replies" : "comments"}`);
			requireScope(token, COMMENT_SCOPE[family], 10);
			const post = state.get(postId) as SimPost;
			const author = state.get(post.ownerId);
			const created = state.put({
				kind: "comment",
				id: state.nextId(),
				postId,
				parentId,
				text: message,
				authorId: post.ownerId,
				authorName: author?.kind === "ig_user" ? author.username : "sandbox",
				createdAt: state.now(),
			});
			ledger.comments.push({
				postId,
				commentId: created.id,
				text: message,
				at: Date.now(),
			});
			return { body: { id: created.id } };
		};
		const isFacebookTarget = (id: string) => {
			const target = state.get(id);
			const post =
				target?.kind === "comment" ? state.get(target.postId) : target;
			return (
				family === "facebook" &&
				post?.kind === "post" &&
				post.platform === "facebook_page"
			);
		};
		app.post(
			`${prefix}/:id/comments`,
			handler(ctx, family, "comment", (req) =>
				isFacebookTarget((req.params as { id: string }).id)
					? facebookComment(req)
					: comment(req, false),
			),
		);
		app.post(
			`${prefix}/:id/replies`,
			handler(ctx, family, "comment", (req) => comment(req, true)),
		);
	}

	if (family === "facebook" && videoPrefix)
		registerFacebookPublishing(app, ctx, prefix, videoPrefix, recordPost);
}

/** Pages API publishing: /feed, /photos and /videos on the video host. */
function registerFacebookPublishing(
	app: FastifyInstance,
	ctx: RouteContext,
	prefix: string,
	videoPrefix: string,
	recordPost: (p: SimPost) => void,
): void {
	const { state } = ctx;
	const family: Family = "facebook";

	const pageFor = (req: FastifyRequest) => {
		const token = authenticate(state, req, family);
		const { id } = req.params as { id: string };
		const page = resolveObject(state, family, token, id, "POST");
		if (page.kind !== "page") throw unsupported("POST", id);
		if (token.kind !== "page" || token.subjectId !== page.id) {
			throw new SimError(403, {
				message:
					"(#200) If posting to a page, requires both pages_read_engagement and pages_manage_posts as an admin with sufficient administrative permission",
				code: 200,
			});
		}
		requireScope(token, "pages_manage_posts");
		return page;
	};

	const newPost = (
		pageId: string,
		text: string,
		mediaCount: number,
		mediaType: string,
	): SimPost => {
		const n = state.nextId();
		return {
			kind: "post",
			id: `${pageId}_${n}`,
			platform: "facebook_page",
			ownerId: pageId,
			text,
			mediaCount,
			mediaType,
			permalink: `https://www.facebook.com/${pageId}/posts/${n}`,
			createdAt: state.now(),
			replyToId: null,
			videoState: null,
			readyAt: null,
			stats: emptyStats(),
		};
	};

	const checkText = (pageId: string, text: string) => {
		if ([...text].length > 63206)
			throw invalidParam(
				"The message is too long",
				undefined,
				"Posts can be at most 63206 characters.",
			);
		const last = state
			.postsOf(pageId, 0)
			.sort((a, b) => b.createdAt - a.createdAt)[0];
		if (text && last?.text === text)
			throw new SimError(400, {
				message: "(#506) Duplicate status message",
				code: 506,
			});
	};

	app.post(
		`${prefix}/:id/feed`,
		handler(ctx, family, "publish", (req) => {
			const page = pageFor(req);
			const p = params(req);
			const attached = Object.keys(p)
				.filter((k) => /^attached_media\[\d+\]$/.test(k))
				.map((k) => JSON.parse(p[k]!) as { media_fbid: string });
			for (const a of attached) {
				const photo = state.get(a.media_fbid);
				if (
					photo?.kind !== "fb_photo" ||
					photo.pageId !== page.id ||
					photo.published
				)
					throw invalidParam(`Invalid media_fbid ${a.media_fbid}`);
			}
			const text = p.message ?? "";
			if (!text && !p.link && attached.length === 0)
				throw invalidParam(
					"Requires one of the params: message, link, attached_media",
				);
			checkText(page.id, text);
			const post = newPost(
				page.id,
				text,
				attached.length,
				attached.length ? "ALBUM" : p.link ? "LINK" : "STATUS",
			);
			for (const a of attached)
				Object.assign(state.get(a.media_fbid)!, {
					published: true,
					postId: post.id,
				});
			recordPost(post);
			return { body: { id: post.id } };
		}),
	);

	app.post(
		`${prefix}/:id/photos`,
		handler(ctx, family, "publish", async (req) => {
			const page = pageFor(req);
			const p = params(req);
			if (!(await fetchMedia(p.url)))
				throw new SimError(400, {
					message: "(#324) Missing or invalid image file",
					code: 324,
					subcode: 2069019,
				});
			const published = p.published !== "false";
			const photo = state.put({
				kind: "fb_photo" as const,
				id: state.nextId(),
				pageId: page.id,
				url: p.url!,
				published,
				postId: null as string | null,
			});
			if (!published) return { body: { id: photo.id } };
			checkText(page.id, p.message ?? "");
			const post = newPost(page.id, p.message ?? "", 1, "PHOTO");
			photo.postId = post.id;
			recordPost(post);
			return { body: { id: photo.id, post_id: post.id } };
		}),
	);

	app.post(
		`${videoPrefix}/:id/videos`,
		handler(ctx, family, "publish", (req) => {
			const page = pageFor(req);
			const p = params(req);
			if (!p.file_url)
				throw invalidParam("The parameter file_url or source is required");
			const post: SimPost = {
				...newPost(page.id, p.description ?? "", 1, "VIDEO"),
				id: state.nextId(),
				videoState: "processing",
			};
			post.permalink = `https://www.facebook.com/${page.id}/videos/${post.id}/`;
			void fetchMedia(p.file_url).then((ok) => {
				post.videoState = ok ? "ready" : "error";
				post.readyAt = state.now() + state.containerDelayMs;
			});
			recordPost(post);
			return { body: { id: post.id } };
		}),
	);

	app.delete(
		`${prefix}/:id/permissions`,
		handler(ctx, family, "revoke", (req) => {
			const token = authenticate(state, req, family);
			const { id } = req.params as { id: string };
			if (token.kind === "page") state.tokens.delete(token.token);
			else if (id === "me" || id === token.subjectId)
				state.revokeUser(token.subjectId, family);
			else throw unsupported("DELETE", `${id}/permissions`);
			return { body: { success: true } };
		}),
	);
}
