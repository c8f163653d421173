/**
 * OAuth 2.0 (authorization code with PKCE) and user endpoints of the X simulator: authorize (approves at
 * once and redirects back), token (code and rotating refresh), revoke, /2/users/me, users search and
 * lookup, and communities search.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import {
	type XSimContext,
	authorize,
	formBody,
	oauthError,
	problem,
	simulate,
} from "./x-sim.http.js";
import type { XSimUser } from "./x-sim.state.js";

const READ_LIMIT = 900;

export function userJson(
	u: XSimUser,
	fields: string[],
): Record<string, unknown> {
	const out: Record<string, unknown> = {
		id: u.id,
		name: u.name,
		username: u.username,
	};
	if (fields.includes("profile_image_url"))
		out.profile_image_url = u.profileImageUrl;
	if (fields.includes("verified")) out.verified = u.verified;
	return out;
}

const listParam = (req: FastifyRequest, name: string) =>
	String((req.query as Record<string, string>)[name] ?? "")
		.split(",")
		.filter(Boolean);

function sameSecret(a: string, b: string): boolean {
	const x = Buffer.from(a);
	const y = Buffer.from(b);
	return x.length === y.length && timingSafeEqual(x, y);
}

export function registerXOauthRoutes(
	app: FastifyInstance,
	ctx: XSimContext,
): void {
	const { state } = ctx;

	/** Confidential clients send HTTP Basic; public clients send client_id in the form. */
	function checkClient(
		req: FastifyRequest,
		form: Record<string, string>,
	): void {
		if (state.clientSecret !== null) {
			const header = req.headers.authorization ?? "";
			const decoded = header.startsWith("Basic ")
				? Buffer.from(header.slice(6), "base64").toString("utf8")
				: "";
			const expected = `${state.clientId}:${state.clientSecret}`;
			if (!sameSecret(decoded, expected))
				throw oauthError(
					401,
					"unauthorized_client",
					"Missing valid authorization header",
				);
		} else if (form.client_id !== state.clientId) {
			throw oauthError(
				400,
				"invalid_request",
				"Missing required parameter [client_id].",
			);
		}
	}

	app.get(
		"/i/oauth2/authorize",
		simulate(ctx, "authorize", (req) => {
			const q = req.query as Record<string, string | undefined>;
			if (q.client_id !== state.clientId)
				throw oauthError(400, "invalid_request", "Unknown client_id.");
			if (
				q.response_type !== "code" ||
				!q.redirect_uri ||
				!q.state ||
				!q.code_challenge
			) {
				throw oauthError(
					400,
					"invalid_request",
					"response_type=code, redirect_uri, state and code_challenge are required.",
				);
			}
			const method = q.code_challenge_method ?? "plain";
			if (method !== "S256" && method !== "plain")
				throw oauthError(
					400,
					"invalid_request",
					"Unsupported code_challenge_method.",
				);
			const scopes = (q.scope ?? "").split(" ").filter(Boolean);
			if (scopes.length === 0)
				throw oauthError(400, "invalid_scope", "scope is required.");
			// sandbox behaviour: the account approves at once; sandbox_user picks which fake account logs in
			const user = state.user(q.sandbox_user || undefined);
			const code = Buffer.from(
				`${user.id}:${Date.now()}:${Math.random()}`,
			).toString("base64url");
			state.codes.set(code, {
				userId: user.id,
				scopes,
				redirectUri: q.redirect_uri,
				challenge: q.code_challenge,
				method,
				expiresAt: Date.now() + 30_000,
			});
			const target = new URL(q.redirect_uri);
			target.searchParams.set("state", q.state);
			target.searchParams.set("code", code);
			return { status: 302, headers: { location: target.toString() } };
		}),
	);

	app.post(
		"/2/oauth2/token",
		simulate(ctx, "token", (req) => {
			const f = formBody(req);
			checkClient(req, f);
			let userId: string;
			let scopes: string[];
			if (f.grant_type === "authorization_code") {
				const code = state.codes.get(f.code ?? "");
				state.codes.delete(f.code ?? "");
				if (
					!code ||
					code.expiresAt < Date.now() ||
					code.redirectUri !== f.redirect_uri
				) {
					throw oauthError(
						400,
						"invalid_request",
						"Value passed for the authorization code was invalid.",
					);
				}
				const verifier = f.code_verifier ?? "";
				const derived =
					code.method === "S256"
						? createHash("sha256").update(verifier).digest("base64url")
						: verifier;
				if (!verifier || derived !== code.challenge)
					throw oauthError(
						400,
						"invalid_request",
						"Value passed for the code_verifier was invalid.",
					);
				userId = code.userId;
				scopes = code.scopes;
			} else if (f.grant_type === "refresh_token") {
				const refresh = state.refreshTokens.get(f.refresh_token ?? "");
				// refresh tokens rotate: each one can be used once
				if (!refresh || refresh.used || refresh.revoked)
					throw oauthError(
						400,
						"invalid_request",
						"Value passed for the token was invalid.",
					);
				refresh.used = true;
				userId = refresh.userId;
				scopes = refresh.scopes;
			} else {
				throw oauthError(400, "invalid_request", "Unsupported grant_type.");
			}
			const issued = state.issueTokens(userId, scopes);
			const body: Record<string, unknown> = {
				token_type: "bearer",
				expires_in: state.accessTokenTtlSeconds,
				access_token: issued.accessToken,
				scope: scopes.join(" "),
			};
			if (issued.refreshToken) body.refresh_token = issued.refreshToken;
			return { status: 200, body };
		}),
	);

	app.post(
		"/2/oauth2/revoke",
		simulate(ctx, "revoke", (req) => {
			const f = formBody(req);
			checkClient(req, f);
			const token = f.token ?? "";
			const access = state.tokens.get(token);
			if (access) access.revoked = true;
			const refresh = state.refreshTokens.get(token);
			if (refresh) refresh.revoked = true;
			return { status: 200, body: { revoked: true } };
		}),
	);

	app.get(
		"/2/users/me",
		simulate(ctx, "users_me", (req) => {
			const token = authorize(
				ctx,
				req,
				["users.read", "tweet.read"],
				"users_me",
				75,
			);
			const user = state.users.get(token.userId);
			if (!user) throw problem(401, "Unauthorized");
			return {
				status: 200,
				body: { data: userJson(user, listParam(req, "user.fields")) },
			};
		}),
	);

	app.get(
		"/2/users/search",
		simulate(ctx, "users_search", (req) => {
			authorize(
				ctx,
				req,
				["users.read", "tweet.read"],
				"users_search",
				READ_LIMIT,
			);
			if (!state.usersSearchEnabled) {
				throw problem(
					403,
					"When authenticating requests to the X API v2 endpoints, you must use keys and tokens from an App with the appropriate level of access.",
					"https://api.x.com/2/problems/client-forbidden",
					undefined,
					{
						reason: "client-not-enrolled",
						required_enrollment: "Appropriate Level of API Access",
					},
				);
			}
			const q = String(
				(req.query as Record<string, string>).query ?? "",
			).toLowerCase();
			if (!q)
				throw problem(
					400,
					"The `query` query parameter can not be empty",
					"https://api.x.com/2/problems/invalid-request",
				);
			const fields = listParam(req, "user.fields");
			const found = [...state.users.values()].filter(
				(u) =>
					u.username.toLowerCase().includes(q) ||
					u.name.toLowerCase().includes(q),
			);
			return {
				status: 200,
				body: found.length
					? { data: found.map((u) => userJson(u, fields)) }
					: { meta: { result_count: 0 } },
			};
		}),
	);

	app.get(
		"/2/users/by/username/:username",
		simulate(ctx, "users_lookup", (req) => {
			authorize(
				ctx,
				req,
				["users.read", "tweet.read"],
				"users_lookup",
				READ_LIMIT,
			);
			const username = (req.params as { username: string }).username;
			const user = [...state.users.values()].find(
				(u) => u.username.toLowerCase() === username.toLowerCase(),
			);
			if (!user) {
				return {
					status: 200,
					body: {
						errors: [
							{
								value: username,
								detail: `Could not find user with username: [${username}].`,
								title: "Not Found Error",
								resource_type: "user",
								parameter: "username",
								resource_id: username,
								type: "https://api.x.com/2/problems/resource-not-found",
							},
						],
					},
				};
			}
			return {
				status: 200,
				body: { data: userJson(user, listParam(req, "user.fields")) },
			};
		}),
	);

	app.get(
		"/2/communities/search",
		simulate(ctx, "community_search", (req) => {
			authorize(
				ctx,
				req,
				["tweet.read", "users.read"],
				"community_search",
				300,
			);
			const q = String(
				(req.query as Record<string, string>).query ?? "",
			).toLowerCase();
			if (!q)
				throw problem(
					400,
					"The `query` query parameter can not be empty",
					"https://api.x.com/2/problems/invalid-request",
				);
			const found = state.communities.filter(
				(c) =>
					c.name.toLowerCase().includes(q) ||
					c.description.toLowerCase().includes(q),
			);
			return {
				status: 200,
				body: found.length
					? { data: found, meta: { result_count: found.length } }
					: { meta: { result_count: 0 } },
			};
		}),
	);
}
