/**
 * GET /v1/channel-accounts/oauth/callback/{platform}: consumes the state once, exchanges the code,
 * stores the tokens encrypted, looks up the accounts and upserts the channel. When the login gives
 * access to several accounts (Facebook pages), one channel waits in `in_between_steps` with the
 * choices; POST /v1/channel-accounts/{id}/select completes it.
 */
import type { Clock } from "../../app-deps.js";
import type { Db, Executor } from "../../platform/db/database.js";
import { AppError } from "../../platform/errors.js";
import { newId } from "../../platform/ids.js";
import type { Encryptor } from "../../platform/secrets/encryption.js";
import {
	type OAuthTokens,
	type Platform,
	type ProviderAccount,
	ProviderError,
} from "../../providers/provider.js";
import type { ProviderRegistry } from "../../providers/registry.js";
import { assertTransition } from "./channel-states.js";
import { channelsRepository } from "./channels.repository.js";
import type { PendingChoice } from "./channels.tables.js";
import {
	type ConnectStateRow,
	codeVerifierOf,
	consumeConnectState,
	findConnectState,
} from "./connect-states.js";
import type { TokenVault } from "./token-vault.js";

export interface CallbackDeps {
	db: Db;
	registry: ProviderRegistry;
	vault: TokenVault;
	encryptor: Encryptor;
	clock: Clock;
}

export type CallbackOutcome =
	| {
			result: "connected" | "in_between_steps";
			platform: Platform;
			channelAccountId: string;
			returnUrl: string | null;
			choices?: Array<Omit<PendingChoice, "accessTokenRef">>;
	  }
	| {
			result: "error";
			platform: Platform;
			error: string;
			message: string;
			returnUrl: string | null;
	  };

const publicChoice = ({ accessTokenRef: _secret, ...rest }: PendingChoice) =>
	rest;

export class ChannelCallbackService {
	constructor(private readonly deps: CallbackDeps) {}

	/** Throws channel_oauth_state_invalid when the state cannot be trusted (no return URL is known then). */
	async complete(
		platform: Platform,
		query: {
			code?: string;
			state?: string;
			error?: string;
			error_description?: string;
		},
	): Promise<CallbackOutcome> {
		const now = this.deps.clock.now();
		const row = query.state
			? await findConnectState(this.deps.db, query.state)
			: null;
		if (
			!row ||
			row.platform !== platform ||
			!(await consumeConnectState(this.deps.db, row.id, now))
		) {
			throw new AppError("channel_oauth_state_invalid", {
				message:
					"The connect state is unknown, expired, already used or for another platform; request a new connect URL.",
			});
		}
		const fail = (error: string, message: string): CallbackOutcome => ({
			result: "error",
			platform,
			error,
			message,
			returnUrl: row.return_url,
		});
		if (query.error)
			return fail(
				"access_denied",
				`The platform answered ${query.error.slice(0, 100)}: the user did not approve the connection.`,
			);
		if (!query.code)
			return fail("invalid_callback", "The platform callback carried no code.");
		const provider = this.deps.registry.get(platform);
		let tokens: OAuthTokens;
		let accounts: ProviderAccount[];
		try {
			tokens = await provider.oauth.exchangeCode({
				code: query.code,
				redirectUri: row.redirect_uri,
				codeVerifier: codeVerifierOf(this.deps.encryptor, row),
			});
			accounts = await provider.lookupAccounts({ tokens });
		} catch (err) {
			const category = err instanceof ProviderError ? err.category : "unknown";
			return fail(
				"channel_oauth_exchange_failed",
				`The platform refused the code exchange or the account lookup (${category}).`,
			);
		}
		if (accounts.length === 0)
			return fail(
				"no_accounts",
				"The login gives access to no account this service can publish as.",
			);
		const channelAccountId = await this.deps.db
			.transaction()
			.execute(async (tx) => {
				if (accounts.length === 1)
					return this.connectOne(tx, row, tokens, accounts[0]!, now);
				return this.waitForChoice(tx, row, tokens, accounts, now);
			});
		if (accounts.length === 1)
			return {
				result: "connected",
				platform,
				channelAccountId,
				returnUrl: row.return_url,
			};
		return {
			result: "in_between_steps",
			platform,
			channelAccountId,
			returnUrl: row.return_url,
			choices: await this.choices(row.organization_id, channelAccountId),
		};
	}

	private async storeTokens(
		tx: Executor,
		row: ConnectStateRow,
		tokens: OAuthTokens,
		account: ProviderAccount | null,
		now: Date,
	) {
		const { vault } = this.deps;
		const accessToken = account?.accountAccessToken ?? tokens.accessToken;
		// an account token (Facebook page token from a long-lived user token) does not expire
		const expiresAt = account?.accountAccessToken ? null : tokens.expiresAt;
		const accessRef = await vault.store(tx, {
			organizationId: row.organization_id,
			platform: row.platform,
			kind: "access",
			token: accessToken,
			expiresAt,
			at: now,
		});
		const refreshRef = tokens.refreshToken
			? await vault.store(tx, {
					organizationId: row.organization_id,
					platform: row.platform,
					kind: "refresh",
					token: tokens.refreshToken,
					expiresAt: tokens.refreshTokenExpiresAt,
					at: now,
				})
			: null;
		return { accessRef, refreshRef, expiresAt };
	}

	/** Upserts the channel of one account as connected with fresh tokens; answers its id. */
	private async connectOne(
		tx: Executor,
		row: ConnectStateRow,
		tokens: OAuthTokens,
		account: ProviderAccount,
		now: Date,
		refs?: {
			accessRef: string;
			refreshRef: string | null;
			expiresAt: Date | null;
		},
	): Promise<string> {
		const { vault } = this.deps;
		const { accessRef, refreshRef, expiresAt } =
			refs ?? (await this.storeTokens(tx, row, tokens, account, now));
		const existing = await channelsRepository.lockByExternal(
			tx,
			row.organization_id,
			row.platform,
			account.externalAccountId,
		);
		const settings = { ...tokens.extra };
		if (!existing) {
			const id = newId("cha");
			await channelsRepository.insert(tx, {
				id,
				organizationId: row.organization_id,
				brandId: row.brand_id,
				platform: row.platform,
				externalAccountId: account.externalAccountId,
				displayName: account.displayName,
				handle: account.handle,
				platformAppId: this.deps.registry.appConfig(row.platform).clientId,
				state: "connected",
				scopes: tokens.scopes,
				accessTokenRef: accessRef,
				refreshTokenRef: refreshRef,
				tokenExpiresAt: expiresAt,
				additionalSettings: settings,
				at: now,
			});
			await vault.attach(tx, row.organization_id, id, [accessRef, refreshRef]);
			return id;
		}
		assertTransition(existing.state, "connected");
		await channelsRepository.update(tx, row.organization_id, existing.id, {
			brand_id: row.brand_id ?? existing.brand_id,
			display_name: account.displayName,
			handle: account.handle,
			platform_app_id: this.deps.registry.appConfig(row.platform).clientId,
			state: "connected",
			state_reason: null,
			scopes: tokens.scopes,
			access_token_ref: accessRef,
			refresh_token_ref: refreshRef,
			token_expires_at: expiresAt,
			additional_settings: JSON.stringify({
				...(existing.additional_settings ?? {}),
				...settings,
			}),
			pending_choices: null,
			refresh_failures: 0,
			next_refresh_at: null,
			updated_at: now,
		});
		await vault.attach(tx, row.organization_id, existing.id, [
			accessRef,
			refreshRef,
		]);
		await vault.deleteForChannel(tx, row.organization_id, existing.id, [
			accessRef,
			refreshRef,
		]);
		return existing.id;
	}

	/** One pending channel holding the user token and each account's own token, waiting for a choice. */
	private async waitForChoice(
		tx: Executor,
		row: ConnectStateRow,
		tokens: OAuthTokens,
		accounts: ProviderAccount[],
		now: Date,
	): Promise<string> {
		const { vault } = this.deps;
		const user = await this.storeTokens(tx, row, tokens, null, now);
		const choices: PendingChoice[] = [];
		for (const a of accounts) {
			const ref = a.accountAccessToken
				? await vault.store(tx, {
						organizationId: row.organization_id,
						platform: row.platform,
						kind: "access",
						token: a.accountAccessToken,
						at: now,
					})
				: null;
			choices.push({
				externalAccountId: a.externalAccountId,
				displayName: a.displayName,
				handle: a.handle,
				avatarUrl: a.avatarUrl,
				accessTokenRef: ref,
			});
		}
		const id = newId("cha");
		await channelsRepository.insert(tx, {
			id,
			organizationId: row.organization_id,
			brandId: row.brand_id,
			platform: row.platform,
			// a placeholder until the choice: the connect request's own id keeps the unique key free
			externalAccountId: `pending:${row.id}`,
			displayName: `Choose one of ${accounts.length} ${row.platform} accounts`,
			handle: null,
			platformAppId: this.deps.registry.appConfig(row.platform).clientId,
			state: "in_between_steps",
			stateReason: "account_choice_required",
			scopes: tokens.scopes,
			accessTokenRef: user.accessRef,
			refreshTokenRef: user.refreshRef,
			tokenExpiresAt: user.expiresAt,
			additionalSettings: { ...tokens.extra },
			pendingChoices: choices,
			at: now,
		});
		await vault.attach(tx, row.organization_id, id, [
			user.accessRef,
			user.refreshRef,
			...choices.map((c) => c.accessTokenRef),
		]);
		return id;
	}

	async choices(organizationId: string, channelAccountId: string) {
		const row = await channelsRepository.get(
			this.deps.db,
			organizationId,
			channelAccountId,
		);
		if (!row)
			throw new AppError("channel_account_not_found", {
				message: `No channel account ${channelAccountId} in the principal organization.`,
			});
		return (row.pending_choices ?? []).map(publicChoice);
	}

	/** Completes an in_between_steps channel with the chosen account; answers the connected channel's id. */
	async select(
		organizationId: string,
		channelAccountId: string,
		externalAccountId: string,
	): Promise<string> {
		const now = this.deps.clock.now();
		const { vault } = this.deps;
		return this.deps.db.transaction().execute(async (tx) => {
			const pending = await channelsRepository.lock(
				tx,
				organizationId,
				channelAccountId,
			);
			if (!pending)
				throw new AppError("channel_account_not_found", {
					message: `No channel account ${channelAccountId} in the principal organization.`,
				});
			if (pending.state !== "in_between_steps" || !pending.pending_choices) {
				throw new AppError("channel_account_invalid_transition", {
					message: `Channel account ${channelAccountId} is ${pending.state}, not waiting for an account choice.`,
				});
			}
			const choice = pending.pending_choices.find(
				(c) => c.externalAccountId === externalAccountId,
			);
			if (!choice) {
				throw new AppError("invalid_public_channel_account_request", {
					message: `externalAccountId must be one of ${pending.pending_choices.map((c) => c.externalAccountId).join(", ")}.`,
					fields: [{ path: ["externalAccountId"], source: "body" }],
				});
			}
			const accessRef = choice.accessTokenRef ?? pending.access_token_ref!;
			const refreshRef = choice.accessTokenRef
				? null
				: pending.refresh_token_ref;
			const expiresAt = choice.accessTokenRef ? null : pending.token_expires_at;
			const tokens: OAuthTokens = {
				accessToken: "",
				refreshToken: null,
				expiresAt,
				refreshTokenExpiresAt: null,
				scopes: pending.scopes,
				extra: {},
			};
			const row = {
				organization_id: organizationId,
				platform: pending.platform,
				brand_id: pending.brand_id,
			} as ConnectStateRow;
			const existing = await channelsRepository.lockByExternal(
				tx,
				organizationId,
				pending.platform,
				externalAccountId,
			);
			if (existing) {
				// a reconnect of a known account: it keeps its id; the placeholder goes away with its other secrets
				await tx
					.updateTable("provider_token_secrets")
					.set({ channel_account_id: existing.id })
					.where("organization_id", "=", organizationId)
					.where("id", "in", [accessRef, ...(refreshRef ? [refreshRef] : [])])
					.execute();
				await tx
					.deleteFrom("channel_accounts")
					.where("organization_id", "=", organizationId)
					.where("id", "=", pending.id)
					.execute();
			}
			const account: ProviderAccount = {
				externalAccountId,
				displayName: choice.displayName,
				handle: choice.handle,
				avatarUrl: choice.avatarUrl,
			};
			if (existing)
				return this.connectOne(tx, row, tokens, account, now, {
					accessRef,
					refreshRef,
					expiresAt,
				});
			await channelsRepository.update(tx, organizationId, pending.id, {
				external_account_id: externalAccountId,
				display_name: choice.displayName,
				handle: choice.handle,
				state: "connected",
				state_reason: null,
				access_token_ref: accessRef,
				refresh_token_ref: refreshRef,
				token_expires_at: expiresAt,
				pending_choices: null,
				updated_at: now,
			});
			await vault.deleteForChannel(tx, organizationId, pending.id, [
				accessRef,
				refreshRef,
			]);
			return pending.id;
		});
	}
}
