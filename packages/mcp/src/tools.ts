/**
 * The agent workflow as MCP tools. Each tool is one API operation; its input schema is built at start-up
 * from that operation's own parameter and request-body schemas in the service's OpenAPI document, so the
 * tool accepts exactly what the API accepts. Writes never act unless `confirm: true` is given: for
 * operations with a `dryRun` field the tool sends `dryRun: !confirm` (the API's dry run answers what would
 * happen); for the others, a call without confirm describes the request instead of sending it.
 */
export type ToolMode = 'read' | 'dry_run_write' | 'confirm_write';

export interface ToolSpec {
  name: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  mode: ToolMode;
  description: string;
}

export const TOOL_SPECS: ToolSpec[] = [
  { name: 'list_brands', method: 'get', path: '/v1/brands', mode: 'read', description: 'List the brands of the organization (set includeProducts to embed their products).' },
  { name: 'get_brand', method: 'get', path: '/v1/brands/{brandId}', mode: 'read', description: 'Get one brand with its products.' },
  { name: 'list_channel_accounts', method: 'get', path: '/v1/channel-accounts', mode: 'read', description: 'List connected social channels (filter by brandId, platform, state). Targets of a post name a channelAccountId from here.' },
  { name: 'get_provider_capabilities', method: 'get', path: '/v1/providers/capabilities', mode: 'read', description: 'What each platform supports: text limits, media kinds and counts, first comments, scheduling.' },
  { name: 'list_media', method: 'get', path: '/v1/media', mode: 'read', description: 'List media library items (filter by brandId, kind).' },
  { name: 'upload_media', method: 'post', path: '/v1/media', mode: 'confirm_write', description: 'Upload a small media file as base64 JSON into the media library.' },
  { name: 'import_media', method: 'post', path: '/v1/media/import', mode: 'dry_run_write', description: 'Import media from a public URL into the media library.' },
  { name: 'preview_publish_plan', method: 'post', path: '/v1/publish/plans/preview', mode: 'read', description: 'Validate a post for each target platform without creating anything. Answers valid plus per-target issues (text too long, media not allowed, ...); fix the plan and preview again until valid is true.' },
  { name: 'publish', method: 'post', path: '/v1/agent/publish', mode: 'dry_run_write', description: 'Create a publish job from a plan (set plan.scheduleAt to schedule it, enqueue: true to publish now).' },
  { name: 'find_publish_slot', method: 'get', path: '/v1/publish/slots', mode: 'read', description: 'Recommend the next free posting time for a brand, channel or profile.' },
  { name: 'list_publish_jobs', method: 'get', path: '/v1/publish/jobs', mode: 'read', description: 'List publish jobs (filter by brandId, status, from, to).' },
  { name: 'get_publish_job', method: 'get', path: '/v1/publish/jobs/{publishJobId}', mode: 'read', description: 'Get a publish job with each target status, error and permalink.' },
  { name: 'enqueue_publish_job', method: 'post', path: '/v1/publish/jobs/{publishJobId}/enqueue', mode: 'confirm_write', description: 'Queue a draft publish job for publishing now.' },
  { name: 'schedule_publish_job', method: 'post', path: '/v1/publish/jobs/{publishJobId}/schedule', mode: 'confirm_write', description: 'Schedule or reschedule a publish job at scheduleAt.' },
  { name: 'cancel_publish_job', method: 'post', path: '/v1/publish/jobs/{publishJobId}/cancel', mode: 'confirm_write', description: 'Cancel a publish job that has not been published.' },
  { name: 'preview_publish_batch', method: 'post', path: '/v1/publish/batches/preview', mode: 'read', description: 'Spread many product posts over schedule slots and preview the assignments and warnings.' },
  { name: 'commit_publish_batch', method: 'post', path: '/v1/publish/batches', mode: 'dry_run_write', description: 'Commit a publish batch (creates its scheduled jobs).' },
  { name: 'list_publish_batches', method: 'get', path: '/v1/publish/batches', mode: 'read', description: 'List publish batches and their status.' },
  { name: 'list_social_comments', method: 'get', path: '/v1/social-comments', mode: 'read', description: 'List synced comments (filter by brandId, channelAccountId, status, replyStatus).' },
  { name: 'sync_social_comments', method: 'post', path: '/v1/social-comments/sync', mode: 'dry_run_write', description: 'Fetch the comments of a published post from its platform.' },
  { name: 'draft_comment_reply', method: 'post', path: '/v1/social-comments/reply-drafts', mode: 'dry_run_write', description: 'Draft a reply to a comment with the configured language model (never sends it).' },
  { name: 'reply_to_social_comment', method: 'post', path: '/v1/social-comments/{socialCommentId}/reply', mode: 'dry_run_write', description: 'Post a reply to a comment on its platform.' },
  { name: 'list_analytics_snapshots', method: 'get', path: '/v1/analytics/snapshots', mode: 'read', description: 'List stored metrics snapshots of published posts.' },
  { name: 'sync_analytics', method: 'post', path: '/v1/analytics/sync', mode: 'dry_run_write', description: "Read a published post's metrics from its platform and store a snapshot." },
];

type Json = Record<string, any>;

/** Inlines local `$ref`s (`#/components/...`), leaving a recursive one as a plain object. */
export function deref(schema: unknown, doc: Json, seen: string[] = []): unknown {
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
  inputSchema: { type: 'object'; properties: Json; required: string[]; additionalProperties?: boolean };
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
    for (const p of (op.parameters ?? []) as Json[]) {
      if (p.in !== 'path' && p.in !== 'query') continue;
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
      description: `${spec.description}${suffix}`,
      inputSchema: { type: 'object', properties, required: [...new Set(required)] },
      pathParams,
      queryParams,
      bodyProperties,
      hasDryRun,
    });
  }
  return tools;
}

/** Splits a tool call's arguments into the request's path, query and body. */
export function toRequest(tool: BuiltTool, args: Json): { path: Json; query: Json; body: Json | undefined; confirmed: boolean } {
  const confirmed = args.confirm === true;
  const path: Json = {};
  const query: Json = {};
  for (const p of tool.pathParams) if (args[p] !== undefined) path[p] = args[p];
  for (const q of tool.queryParams) if (args[q] !== undefined) query[q] = args[q];
  let body: Json | undefined;
  if (tool.bodyProperties === null) body = args.body;
  else if (tool.method !== 'get') {
    body = {};
    for (const b of tool.bodyProperties) if (args[b] !== undefined) body[b] = args[b];
    if (tool.hasDryRun) body.dryRun = !confirmed;
  }
  return { path, query, body, confirmed };
}
