/**
 * The agent workflow as MCP tools: one list serving `service-api mcp` (stdio, with a key) and the
 * service's own /mcp endpoint (OAuth). Each tool is one API operation; its input schema is built at
 * start-up from that operation's parameter and request-body schemas in the service's OpenAPI document,
 * so the tool accepts exactly what the API accepts, and nothing else (additionalProperties false; the
 * server refuses unknown arguments as the API does). Writes never act unless `confirm: true` is given:
 * for operations with a `dryRun` field the tool sends `dryRun: !confirm` (the API's dry run answers what
 * would happen); for the others, a call without confirm describes the request instead of sending it.
 * `fixed` arguments are set by the tool itself and hidden from its input (publish always queues or
 * schedules; create_draft never does), and `next` tells the agent which call follows.
 */
type ToolMode = 'read' | 'dry_run_write' | 'confirm_write';

export interface ToolSpec {
  name: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  mode: ToolMode;
  /** for writes: what the call changes */
  description: string;
  /** arguments the tool sets itself (not in its input schema) */
  fixed?: { query?: Record<string, unknown>; body?: Record<string, unknown> };
  /** what to call next with the answer's ids (added to write answers and to the description) */
  next?: string;
}

const JOB_NEXT = "Poll get_publish_job with the answer's publishJobId until status is published (or failed, with each target's error).";

export const TOOL_SPECS: ToolSpec[] = [
  {
    name: 'list_brands',
    method: 'get',
    path: '/v1/brands',
    mode: 'read',
    description: 'List the brands of the organization (set includeProducts to embed their products). A post names a brandId from here.',
  },
  { name: 'get_brand', method: 'get', path: '/v1/brands/{brandId}', mode: 'read', description: 'Get one brand with its products.' },
  {
    name: 'list_channel_accounts',
    method: 'get',
    path: '/v1/channel-accounts',
    mode: 'read',
    description:
      'List connected social channels (filter by brandId, platform, state). Targets of a post name a channelAccountId from here.',
  },
  {
    name: 'get_provider_capabilities',
    method: 'get',
    path: '/v1/providers/capabilities',
    mode: 'read',
    description: 'What each platform supports: text limits, media kinds and counts, first comments, scheduling.',
  },
  {
    name: 'list_media',
    method: 'get',
    path: '/v1/media',
    mode: 'read',
    description: 'List media library items (filter by brandId, kind). A post names mediaIds from here.',
  },
  {
    name: 'upload_media',
    method: 'post',
    path: '/v1/media',
    mode: 'confirm_write',
    description: 'Adds a small file (base64 JSON) to the media library; answers its mediaId.',
  },
  {
    name: 'upload_media_from_url',
    method: 'post',
    path: '/v1/media/import',
    mode: 'dry_run_write',
    description:
      "Downloads a public https URL into the media library (the file is fetched and stored); answers its mediaId for a post's media.",
    next: "Use the answer's mediaId in the media of preview_publish_plan and publish.",
  },
  {
    name: 'preview_publish_plan',
    method: 'post',
    path: '/v1/publish/plans/preview',
    mode: 'read',
    description:
      'Validate a post for each target platform without creating anything. Answers valid plus per-target issues (text too long, media not allowed, ...); fix the plan and preview again until valid is true.',
  },
  {
    name: 'find_publish_slot',
    method: 'get',
    path: '/v1/publish/slots',
    mode: 'read',
    description: 'Recommend the next free posting time for a brand, channel or profile; pass it as plan.scheduleAt to publish.',
  },
  {
    name: 'publish',
    method: 'post',
    path: '/v1/agent/publish',
    mode: 'dry_run_write',
    fixed: { body: { enqueue: true } },
    description:
      'Publishes a post: creates a publish job that is queued now, or scheduled when plan.scheduleAt is set. Use create_draft to save a draft instead.',
    next: JOB_NEXT,
  },
  {
    name: 'create_draft',
    method: 'post',
    path: '/v1/agent/publish',
    mode: 'dry_run_write',
    fixed: { body: { enqueue: false } },
    description: 'Saves a post as a draft publish job (nothing is published or scheduled).',
    next: 'Publish the draft later with enqueue_publish_job, or give it a time with reschedule_publish_job.',
  },
  {
    name: 'list_drafts',
    method: 'get',
    path: '/v1/publish/jobs',
    mode: 'read',
    fixed: { query: { status: 'draft' } },
    description: 'List draft publish jobs (filter by brandId, from, to); read one with get_publish_job.',
  },
  {
    name: 'list_publish_jobs',
    method: 'get',
    path: '/v1/publish/jobs',
    mode: 'read',
    description: 'List publish jobs (filter by brandId, status, from, to).',
  },
  {
    name: 'get_publish_job',
    method: 'get',
    path: '/v1/publish/jobs/{publishJobId}',
    mode: 'read',
    description: 'Get a publish job or draft with its text, media, targets, each target status, error and permalink.',
  },
  {
    name: 'enqueue_publish_job',
    method: 'post',
    path: '/v1/publish/jobs/{publishJobId}/enqueue',
    mode: 'confirm_write',
    description: 'Queues a draft (or scheduled) publish job for publishing now.',
    next: JOB_NEXT,
  },
  {
    name: 'reschedule_publish_job',
    method: 'post',
    path: '/v1/publish/jobs/{publishJobId}/schedule',
    mode: 'confirm_write',
    description: 'Schedules a draft, or moves a scheduled publish job, to scheduleAt.',
    next: 'The job publishes at scheduleAt; get_publish_job shows its status.',
  },
  {
    name: 'cancel_publish_job',
    method: 'post',
    path: '/v1/publish/jobs/{publishJobId}/cancel',
    mode: 'confirm_write',
    description: 'Cancels a publish job that has not been published (its targets will not be published).',
  },
  {
    name: 'preview_publish_batch',
    method: 'post',
    path: '/v1/publish/batches/preview',
    mode: 'read',
    description: 'Spread many product posts over schedule slots and preview the assignments and warnings.',
  },
  {
    name: 'commit_publish_batch',
    method: 'post',
    path: '/v1/publish/batches',
    mode: 'dry_run_write',
    description: 'Commits a publish batch: creates its scheduled publish jobs.',
  },
  {
    name: 'list_publish_batches',
    method: 'get',
    path: '/v1/publish/batches',
    mode: 'read',
    description: 'List publish batches and their status.',
  },
  {
    name: 'list_comments_needing_reply',
    method: 'get',
    path: '/v1/social-comments',
    mode: 'read',
    fixed: { query: { status: 'needs_reply' } },
    description:
      'List synced comments nobody has replied to yet (filter by brandId, channelAccountId, postTargetId). Reply with reply_to_social_comment.',
  },
  {
    name: 'list_social_comments',
    method: 'get',
    path: '/v1/social-comments',
    mode: 'read',
    description: 'List synced comments (filter by brandId, channelAccountId, status, replyStatus).',
  },
  {
    name: 'sync_social_comments',
    method: 'post',
    path: '/v1/social-comments/sync',
    mode: 'dry_run_write',
    description: 'Fetches the comments of a published post from its platform and stores them.',
    next: 'list_comments_needing_reply shows the ones to answer.',
  },
  {
    name: 'draft_comment_reply',
    method: 'post',
    path: '/v1/social-comments/reply-drafts',
    mode: 'dry_run_write',
    description: 'Drafts a reply to a comment with the configured language model and stores the draft (never sends it).',
  },
  {
    name: 'reply_to_social_comment',
    method: 'post',
    path: '/v1/social-comments/{socialCommentId}/reply',
    mode: 'dry_run_write',
    description: 'Posts a reply to a comment on its platform (visible to the public).',
  },
  {
    name: 'list_analytics_snapshots',
    method: 'get',
    path: '/v1/analytics/snapshots',
    mode: 'read',
    description: 'List stored metrics snapshots of published posts.',
  },
  {
    name: 'sync_analytics',
    method: 'post',
    path: '/v1/analytics/sync',
    mode: 'dry_run_write',
    description: "Reads a published post's metrics from its platform and stores a snapshot.",
  },
];

type Json = Record<string, any>;

/** Inlines local `$ref`s (`#/components/...`), leaving a recursive one as a plain object. */
function deref(schema: unknown, doc: Json, seen: string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((s) => deref(s, doc, seen));
  if (!schema || typeof schema !== 'object') return schema;
  const s = schema as Json;
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#/')) {
    if (seen.includes(s.$ref)) return { type: 'object' };
    const target = s.$ref
      .slice(2)
      .split('/')
      .reduce<any>((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    const { $ref: _ref, ...rest } = s;
    return { ...(deref(target, doc, [...seen, s.$ref]) as Json), ...rest };
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) if (k !== '$id') out[k] = deref(v, doc, seen);
  return out;
}

export interface BuiltTool extends ToolSpec {
  inputSchema: { type: 'object'; properties: Json; required: string[]; additionalProperties: false };
  pathParams: string[];
  queryParams: string[];
  /** body properties that are flattened into the tool input; null when the body is passed whole */
  bodyProperties: string[] | null;
  hasDryRun: boolean;
}

const CONFIRM_DOC = {
  type: 'boolean',
  default: false,
  description: 'false (default): nothing is changed; the answer says what would happen. true: perform it.',
};

/** Builds the tools the document offers (a tool whose operation the server lacks is left out). */
export function buildTools(doc: Json): BuiltTool[] {
  const tools: BuiltTool[] = [];
  for (const spec of TOOL_SPECS) {
    const op = doc.paths?.[spec.path]?.[spec.method] as Json | undefined;
    if (!op) continue;
    const properties: Json = {};
    const required: string[] = [];
    const pathParams: string[] = [];
    const queryParams: string[] = [];
    const fixedQuery = spec.fixed?.query ?? {};
    const fixedBody = spec.fixed?.body ?? {};
    for (const p of (op.parameters ?? []) as Json[]) {
      if (p.in !== 'path' && p.in !== 'query') continue;
      if (p.in === 'query' && p.name in fixedQuery) continue;
      properties[p.name] = { ...(deref(p.schema, doc) as Json), ...(p.description ? { description: p.description } : {}) };
      if (p.in === 'path') pathParams.push(p.name);
      else queryParams.push(p.name);
      if (p.required) required.push(p.name);
    }
    let bodyProperties: string[] | null = [];
    let hasDryRun = false;
    const bodySchema = op.requestBody?.content?.['application/json']?.schema;
    if (bodySchema) {
      let body = deref(bodySchema, doc) as Json;
      // a union of object shapes (the plan preview takes either plan) is offered as its widest shape
      const shapes = body.anyOf as Json[] | undefined;
      if (Array.isArray(shapes) && shapes.length > 0 && shapes.every((b) => b.type === 'object' && b.properties))
        body = shapes.reduce((a, b) => (Object.keys(b.properties).length > Object.keys(a.properties).length ? b : a));
      if (body.type === 'object' && body.properties) {
        for (const [name, schema] of Object.entries(body.properties as Json)) {
          if (name === 'dryRun') {
            hasDryRun = true;
            continue;
          }
          if (name in fixedBody) continue;
          properties[name] = schema;
          bodyProperties.push(name);
        }
        for (const r of (body.required ?? []) as string[]) if (r !== 'dryRun') required.push(r);
      } else {
        properties.body = body;
        bodyProperties = null;
        if (op.requestBody.required) required.push('body');
      }
    }
    // an operation without a dryRun field is never sent unconfirmed
    const mode: ToolMode = spec.mode === 'dry_run_write' && !hasDryRun ? 'confirm_write' : spec.mode;
    if (mode !== 'read') properties.confirm = CONFIRM_DOC;
    const suffix =
      mode === 'read'
        ? ''
        : ' Dry run by default: without confirm: true nothing is created or sent and the answer shows what would happen; pass confirm: true to perform it.';
    tools.push({
      ...spec,
      mode,
      description: `${spec.description}${suffix}${spec.next ? ` Next: ${spec.next}` : ''}`,
      inputSchema: { type: 'object', properties, required: [...new Set(required)], additionalProperties: false },
      pathParams,
      queryParams,
      bodyProperties,
      hasDryRun,
    });
  }
  return tools;
}

/** Arguments the tool does not take (the API refuses unknown fields; so does every tool). */
export function unknownArguments(tool: BuiltTool, args: Json): string[] {
  return Object.keys(args).filter((k) => !(k in tool.inputSchema.properties));
}

/** Splits a tool call's arguments into the request's path, query and body (with the tool's fixed ones). */
export function toRequest(tool: BuiltTool, args: Json): { path: Json; query: Json; body: Json | undefined; confirmed: boolean } {
  const confirmed = args.confirm === true;
  const path: Json = {};
  const query: Json = { ...(tool.fixed?.query ?? {}) };
  for (const p of tool.pathParams) if (args[p] !== undefined) path[p] = args[p];
  for (const q of tool.queryParams) if (args[q] !== undefined) query[q] = args[q];
  let body: Json | undefined;
  if (tool.bodyProperties === null) body = args.body;
  else if (tool.method !== 'get') {
    body = { ...(tool.fixed?.body ?? {}) };
    for (const b of tool.bodyProperties) if (args[b] !== undefined) body[b] = args[b];
    if (tool.hasDryRun) body.dryRun = !confirmed;
  }
  return { path, query, body, confirmed };
}
