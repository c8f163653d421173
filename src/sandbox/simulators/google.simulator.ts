/**
 * Loopback simulator of Google OAuth 2.0 and the YouTube Data API v3 subset the YouTube adapter calls.
 * A Fastify plugin: tests start it alone on 127.0.0.1:0 (startYoutubeSimulator); sandbox mode mounts
 * it inside the service under a prefix and points the adapter at googleSimulatorBaseUrls(origin+prefix).
 *
 * Routes (relative to the mount prefix):
 *   GET  /oauth/o/oauth2/v2/auth    consent screen: approves at once, 302 to redirect_uri?code&state
 *   POST /oauth/token, /oauth/revoke
 *   POST|PUT /upload/youtube/v3/videos   resumable videos.insert
 *   GET  /youtube/v3/{channels,videos,commentThreads,videoCategories}, POST /youtube/v3/{commentThreads,comments}
 *
 * Failure operations for FailureQueue.inject: token, revoke, channels, upload_init,
 * publish (the final PUT), videos_list, comment_insert, comments_list, categories.
 */
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyPluginAsync } from "fastify";
import { FailureQueue, SimulatorLedger } from "../simulator-kit.js";
import { registerGoogleOAuthRoutes } from "./google/google-oauth.routes.js";
import { GoogleSimulatorState } from "./google/google-state.js";
import { registerYoutubeApiRoutes } from "./google/youtube-api.routes.js";
import { registerYoutubeUploadRoutes } from "./google/youtube-upload.routes.js";

export { GoogleSimulatorState } from "./google/google-state.js";

export interface GoogleSimulatorOptions {
	state: GoogleSimulatorState;
	ledger: SimulatorLedger;
	failures: FailureQueue;
}

export interface SimulatorBaseUrls {
	apiBaseUrl: string;
	authBaseUrl: string;
	uploadBaseUrl: string;
}

/** Base URLs the YouTube adapter must use to talk to a simulator served at `base` (origin + prefix). */
export function googleSimulatorBaseUrls(base: string): SimulatorBaseUrls {
	const root = base.replace(/\/+$/, "");
	return {
		apiBaseUrl: `${root}/youtube/v3`,
		authBaseUrl: `${root}/oauth`,
		uploadBaseUrl: `${root}/upload/youtube/v3`,
	};
}

export const googleSimulatorPlugin: FastifyPluginAsync<
	GoogleSimulatorOptions
> = async (app, opts) => {
	const closing = new AbortController();
	app.addHook("onClose", async () => closing.abort());
	// content parsers are encapsulated in this plugin: the host app keeps its own
	app.addContentTypeParser(
		"application/x-www-form-urlencoded",
		{ parseAs: "string" },
		(_req, body, done) => {
			done(null, Object.fromEntries(new URLSearchParams(String(body))));
		},
	);
	app.addContentTypeParser(
		"*",
		{ parseAs: "buffer", bodyLimit: 512 * 1024 * 1024 },
		(_req, body, done) => done(null, body),
	);
	const ctx = {
		ledger: opts.ledger,
		failures: opts.failures,
		closing: closing.signal,
	};
	registerGoogleOAuthRoutes(app, opts.state, ctx);
	registerYoutubeUploadRoutes(app, opts.state, ctx);
	registerYoutubeApiRoutes(app, opts.state, ctx);
};

export interface RunningYoutubeSimulator {
	url: string;
	close(): Promise<void>;
	ledger: SimulatorLedger;
	failures: FailureQueue;
	state: GoogleSimulatorState;
	baseUrls: SimulatorBaseUrls;
}

export async function startYoutubeSimulator(
	opts: { state?: GoogleSimulatorState } = {},
): Promise<RunningYoutubeSimulator> {
	const app = Fastify({ logger: false, forceCloseConnections: true });
	const state = opts.state ?? new GoogleSimulatorState();
	const ledger = new SimulatorLedger();
	const failures = new FailureQueue();
	await app.register(googleSimulatorPlugin, { state, ledger, failures });
	await app.listen({ host: "127.0.0.1", port: 0 });
	const { port } = app.server.address() as AddressInfo;
	const url = `http://127.0.0.1:${port}`;
	return {
		url,
		close: async () => {
			await app.close();
		},
		ledger,
		failures,
		state,
		baseUrls: googleSimulatorBaseUrls(url),
	};
}
