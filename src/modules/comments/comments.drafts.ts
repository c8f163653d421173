/**
 * Reply drafts. The prompt carries the comment, the post's own text and the brand/product context; a
 * dry run answers the prompt, the constraints and the settings still missing; a real run calls an
 * OpenAI-compatible Chat Completions endpoint (SERVICE_LLM_*) and trims the answer to the limits. A
 * draft stored on a comment is never sent without an explicit reply call.
 */
import { request } from 'undici';
import { AppError } from '../../platform/errors.js';
import type { Platform } from '../../providers/provider.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { AppDeps } from '../app-deps.js';
import { transition } from './comment-states.js';
import { commentsRepository } from './comments.repository.js';
import type { DraftRequest, DraftResponse, ReplyStatus } from './comments.schemas.js';

const DRAFT_CODE = 'invalid_public_comment_reply_draft_request' as const;
const DEFAULT_MAX_CHARACTERS = 500;

const TONES: Record<string, string> = {
  helpful: 'helpful and clear: answer the question first, then offer one next step',
  friendly: 'warm and friendly, like a person from the team, without exaggeration',
  concise: 'as short as possible: one or two sentences',
  premium: 'polished and calm, never pushy, no slang or emoji',
  supportive: 'empathetic and reassuring; acknowledge the concern before helping',
};

export interface DraftPrompt {
  system: string;
  user: string;
}

function buildPrompt(req: DraftRequest, tone: string, maxCharacters: number): DraftPrompt {
  const brand = req.brandName?.trim() || 'the brand';
  const system = [
    `You reply to comments on ${req.platform} on behalf of ${brand}.`,
    `Tone: ${TONES[tone] ?? tone}.`,
    `Write at most ${maxCharacters} characters of plain text: no markdown, no hashtags, no quotation marks around the reply.`,
    'Reply in the language of the comment. Stay on the topic of the post.',
    'Never invent prices, stock, delivery dates or promises; when the answer is not in the context, invite the person to send a direct message.',
    'Mention the product link only when it answers the comment.',
  ].join('\n');
  const lines = [
    req.postText ? `Post: ${req.postText}` : null,
    req.productName || req.productUrl ? `Product: ${[req.productName, req.productUrl].filter(Boolean).join(' - ')}` : null,
    req.socialContext ? `Context: ${req.socialContext}` : null,
    `Comment: ${req.commentText}`,
    'Write the reply.',
  ].filter((l): l is string => l !== null);
  return { system, user: lines.join('\n') };
}

/** The reply within the character limit: cut at a sentence, else a word boundary, with an ellipsis. */
function enforceLimit(text: string, max: number): string {
  let t = text.trim().replace(/^(reply|answer)\s*:\s*/i, '');
  if (/^["“'].*["”']$/s.test(t)) t = t.slice(1, -1).trim();
  const chars = [...t];
  if (chars.length <= max) return t;
  const cut = chars.slice(0, max).join('');
  const sentence = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('! '), cut.lastIndexOf('? '));
  if (sentence >= max * 0.5) return cut.slice(0, sentence + 1).trim();
  const head = chars.slice(0, max - 1).join('');
  const space = head.lastIndexOf(' ');
  return `${(space >= max * 0.5 ? head.slice(0, space) : head).trimEnd()}…`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class CommentDraftsService {
  constructor(
    private readonly deps: Pick<AppDeps, 'config' | 'database' | 'clock'>,
    private readonly registry: ProviderRegistry,
  ) {}

  private missingEnv(): string[] {
    const env = this.deps.config.env;
    return (['SERVICE_LLM_BASE_URL', 'SERVICE_LLM_API_KEY', 'SERVICE_LLM_MODEL'] as const).filter((k) => !env[k]);
  }

  async draft(organizationId: string, req: DraftRequest): Promise<DraftResponse> {
    const platformLimit = this.registry.get(req.platform as Platform).capability.maxTextLength ?? DEFAULT_MAX_CHARACTERS;
    const maxCharacters = Math.min(req.maxCharacters ?? DEFAULT_MAX_CHARACTERS, platformLimit);
    const tone = req.tone ?? 'helpful';
    const comment = req.socialCommentId ? await commentsRepository.get(this.deps.database.db, organizationId, req.socialCommentId) : null;
    if (req.socialCommentId && !comment)
      throw new AppError('social_comment_not_found', {
        message: `No social comment ${req.socialCommentId} in the principal organization.`,
      });
    if (comment && comment.platform !== req.platform)
      throw new AppError(DRAFT_CODE, {
        message: `Comment ${comment.id} is on ${comment.platform}, not ${req.platform}.`,
        fields: [{ path: ['platform'], source: 'body' }],
      });
    if (req.brandId && comment?.brand_id && comment.brand_id !== req.brandId)
      throw new AppError(DRAFT_CODE, { message: 'The comment belongs to another brand.', fields: [{ path: ['brandId'], source: 'body' }] });
    const prompt = buildPrompt(req, tone, maxCharacters);
    const constraints = { platform: req.platform, tone, maxCharacters };
    if (req.dryRun ?? true) return { mode: 'dry_run', draft: { reply: '', prompt, constraints }, requiredEnv: this.missingEnv() };

    const missing = this.missingEnv();
    if (missing.length > 0)
      throw new AppError(DRAFT_CODE, { message: `Reply drafts need ${missing.join(', ')}.`, details: { requiredEnv: missing } });
    if (comment && !this.deps.config.gateOpen('SERVICE_SOCIAL_COMMENT_WRITE_ENABLED')) throw new AppError('social_comment_write_disabled');
    const raw = await this.complete(prompt);
    const reply = enforceLimit(raw, maxCharacters);
    if (!reply) throw new AppError('provider_request_failed', { message: 'The model answered an empty reply.' });
    if (comment) {
      await this.deps.database.db.transaction().execute(async (tx) => {
        const current = await commentsRepository.get(tx, organizationId, comment.id, true);
        if (!current) return;
        const at = this.deps.clock.now();
        const next = transition(current.reply_status as ReplyStatus, 'draft');
        await commentsRepository.update(tx, organizationId, comment.id, {
          draft: JSON.stringify({ reply, createdAt: at.toISOString() }),
          ...(next ? { status: next.status, reply_status: next.replyStatus } : {}),
          updated_at: at,
        });
      });
    }
    return { mode: 'drafted', draft: { reply, prompt, constraints }, ...(comment ? { socialCommentId: comment.id } : {}) };
  }

  /** One Chat Completions call; one retry on 429/5xx after retry-after (capped at 10 s). */
  private async complete(prompt: DraftPrompt): Promise<string> {
    const env = this.deps.config.env;
    const url = `${env.SERVICE_LLM_BASE_URL!.replace(/\/+$/, '')}/chat/completions`;
    const payload = JSON.stringify({
      model: env.SERVICE_LLM_MODEL,
      messages: [
        { role: 'system', content: prompt.system },
        { role: 'user', content: prompt.user },
      ],
      temperature: 0.4,
    });
    for (let attempt = 1; ; attempt++) {
      let status: number;
      let text: string;
      let retryAfter: string | undefined;
      try {
        const res = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${env.SERVICE_LLM_API_KEY}` },
          body: payload,
          headersTimeout: env.SERVICE_LLM_TIMEOUT_MS,
          bodyTimeout: env.SERVICE_LLM_TIMEOUT_MS,
          signal: AbortSignal.timeout(env.SERVICE_LLM_TIMEOUT_MS),
        });
        status = res.statusCode;
        text = await res.body.text();
        const h = res.headers['retry-after'];
        retryAfter = Array.isArray(h) ? h[0] : h;
      } catch (err) {
        throw new AppError('provider_request_failed', { message: `The reply-draft model call failed: ${(err as Error).name}.` });
      }
      if (status >= 200 && status < 300) {
        try {
          const body = JSON.parse(text) as { choices?: Array<{ message?: { content?: unknown } }> };
          const content = body.choices?.[0]?.message?.content;
          if (typeof content === 'string') return content;
        } catch {
          // fall through
        }
        throw new AppError('provider_request_failed', { message: 'The reply-draft model answered without a message.' });
      }
      const retryable = status === 429 || status >= 500;
      if (retryable && attempt === 1) {
        const seconds = Number(retryAfter);
        const dateMs = retryAfter ? Date.parse(retryAfter) - Date.now() : Number.NaN;
        const waitMs = Number.isFinite(seconds) ? seconds * 1000 : Number.isFinite(dateMs) ? dateMs : 1000;
        await sleep(Math.max(0, Math.min(waitMs, 10_000)));
        continue;
      }
      if (status === 429)
        throw new AppError('provider_rate_limited', {
          message: 'The reply-draft model is rate limited; retry later.',
          headers: { 'retry-after': String(Number(retryAfter) || 60) },
        });
      throw new AppError('provider_request_failed', { message: `The reply-draft model answered ${status}.` });
    }
  }
}
