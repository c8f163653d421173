/**
 * GET /v1/providers/capabilities against schemas written here from the specification's text
 * (Provider capabilities section), independent of the route's own schemas.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type TSchema, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { createTestContext, type TestContext } from "../support/harness.js";

const PLATFORMS = [
	"instagram_business",
	"instagram_standalone",
	"facebook_page",
	"threads",
	"youtube",
	"pinterest",
	"tiktok",
	"x",
];
const lit = (values: string[]) =>
	Type.Union(values.map((v) => Type.Literal(v)));
const Platform = lit(PLATFORMS);
const ToolName = lit([
	"mentionSearch",
	"pageProfile",
	"channelCategories",
	"boardList",
	"privacyOptions",
	"communitySearch",
]);
const PlugName = lit(["firstComment", "reply"]);
const SettingRule = Type.Object({
	field: Type.String(),
	label: Type.String(),
	valueType: lit(["string", "boolean", "number"]),
	required: Type.Boolean(),
	allowedValues: Type.Optional(Type.Array(Type.String())),
});
const MediaRule = Type.Object(
	{
		allowedKinds: Type.Array(lit(["image", "video", "gif"])),
		minItems: Type.Integer({ minimum: 0 }),
		maxItems: Type.Integer({ minimum: 1 }),
		notes: Type.Array(Type.String()),
		maxImageBytes: Type.Optional(Type.Integer({ exclusiveMinimum: 0 })),
		maxVideoBytes: Type.Optional(Type.Integer({ exclusiveMinimum: 0 })),
		maxGifBytes: Type.Optional(Type.Integer({ exclusiveMinimum: 0 })),
		minVideoDurationSeconds: Type.Optional(Type.Number({ minimum: 0 })),
		maxVideoDurationSeconds: Type.Optional(Type.Number({ minimum: 0 })),
		dynamicMaxVideoDurationSetting: Type.Optional(Type.String()),
		requiresVideoThumbnail: Type.Optional(Type.Boolean()),
	},
	{ additionalProperties: false },
);
const Capability = Type.Object(
	{
		platform: Platform,
		displayName: Type.String(),
		requiredScopes: Type.Array(Type.String()),
		mediaRule: MediaRule,
		supportsScheduling: Type.Boolean(),
		supportsComments: Type.Boolean(),
		supportsAnalytics: Type.Boolean(),
		supportsDelete: Type.Boolean(),
		supportsUpdate: Type.Boolean(),
		settingsFields: Type.Array(Type.String()),
		toolNames: Type.Array(ToolName),
		plugNames: Type.Array(PlugName),
		rateLimitPolicy: lit(["low_concurrency", "standard", "strict"]),
		maxTextLength: Type.Optional(Type.Integer({ minimum: 0 })),
		settingRules: Type.Optional(Type.Array(SettingRule)),
	},
	{ additionalProperties: false },
);
const Tool = Type.Object({
	name: ToolName,
	label: Type.String(),
	category: lit(["account_lookup", "composer_lookup", "publishing_option"]),
	description: Type.String(),
	platforms: Type.Array(Platform),
	inputFields: Type.Array(SettingRule),
	outputKind: lit([
		"account_reference",
		"profile",
		"category",
		"board",
		"privacy_option",
		"community",
	]),
});
const Plug = Type.Object({
	name: PlugName,
	label: Type.String(),
	phase: lit(["post_publish", "threading"]),
	description: Type.String(),
	platforms: Type.Array(Platform),
	settingRules: Type.Array(SettingRule),
});
const Response = Type.Object({
	providers: Type.Array(Capability),
	tools: Type.Array(Tool),
	plugs: Type.Array(Plug),
});

function errorsOf(schema: TSchema, value: unknown): string[] {
	return [...Value.Errors(schema, value)].map((e) => `${e.path}: ${e.message}`);
}

describe("provider capabilities", () => {
	let ctx: TestContext;
	let org: Awaited<ReturnType<TestContext["createOrganization"]>>;
	before(async () => {
		ctx = await createTestContext();
		org = await ctx.createOrganization({ scopes: ["brands:read"] });
	});
	after(() => ctx.close());

	it("answers every platform, validating against the specification schemas, for any valid credential", async () => {
		const res = await ctx.app.inject({
			method: "GET",
			url: "/v1/providers/capabilities",
			headers: org.auth,
		});
		assert.equal(res.statusCode, 200);
		const body = res.json();
		assert.deepEqual(errorsOf(Response, body), []);
		assert.deepEqual(
			body.providers.map((p: { platform: string }) => p.platform).sort(),
			[...PLATFORMS].sort(),
		);
		for (const p of body.providers) {
			assert.deepEqual(errorsOf(Capability, p), [], p.platform);
			assert.ok(p.mediaRule.maxItems >= p.mediaRule.minItems, p.platform);
			assert.ok(p.requiredScopes.length > 0, `${p.platform} lists its scopes`);
		}
	});

	it("derives tool and plug platforms from the adapters' capability data", async () => {
		const body = (
			await ctx.app.inject({
				method: "GET",
				url: "/v1/providers/capabilities",
				headers: org.auth,
			})
		).json();
		for (const tool of body.tools) {
			const expected = body.providers
				.filter((p: { toolNames: string[] }) => p.toolNames.includes(tool.name))
				.map((p: { platform: string }) => p.platform);
			assert.deepEqual(tool.platforms, expected, tool.name);
		}
		for (const plug of body.plugs) {
			const expected = body.providers
				.filter((p: { plugNames: string[] }) => p.plugNames.includes(plug.name))
				.map((p: { platform: string }) => p.platform);
			assert.deepEqual(plug.platforms, expected, plug.name);
		}
		const board = body.tools.find(
			(t: { name: string }) => t.name === "boardList",
		);
		assert.deepEqual(board.platforms, ["pinterest"]);
		assert.equal(board.outputKind, "board");
		const youtube = body.providers.find(
			(p: { platform: string }) => p.platform === "youtube",
		);
		assert.ok(
			youtube.settingRules.some((r: { field: string }) =>
				/privacy/i.test(r.field),
			),
			"YouTube privacy setting rule",
		);
	});

	it("needs a credential", async () => {
		const res = await ctx.app.inject({
			method: "GET",
			url: "/v1/providers/capabilities",
		});
		assert.equal(res.statusCode, 401);
		assert.equal(res.json().error, "public_api_token_required");
	});
});
