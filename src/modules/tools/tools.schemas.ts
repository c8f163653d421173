/**
 * TypeBox schemas of the tool API for the OpenAPI document (tag "Tools", security toolApiKey). Requests are validated by the tools' own parsers (utm-builder.ts, qr-options.ts) so
 * that every refusal uses the tool error envelope and names the field.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import {
  QR_DEFAULT_ECL,
  QR_DEFAULT_FORMAT,
  QR_DEFAULT_MARGIN,
  QR_DEFAULT_SIZE,
  QR_MAX_MARGIN,
  QR_MAX_SIZE,
  QR_MIN_SIZE,
} from './qrcode/qr-options.js';
import { UTM_VALUE_MAX_CHARS } from './utm/utm-builder.js';

const UtmValue = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: UTM_VALUE_MAX_CHARS,
    description: `${description} Trimmed; 1-${UTM_VALUE_MAX_CHARS} characters.`,
  });

export const UtmBuildRequest = Type.Object(
  {
    urls: Type.Array(Type.String(), {
      minItems: 1,
      description: 'Landing page URLs (http/https). At most 100 (Pro) or 500 (Max) entries.',
    }),
    source: UtmValue('utm_source.'),
    medium: UtmValue('utm_medium.'),
    campaign: UtmValue('utm_campaign.'),
    content: Type.Optional(UtmValue('utm_content.')),
    term: Type.Optional(UtmValue('utm_term.')),
    id: Type.Optional(UtmValue('Emitted as utm_id.')),
    sourcePlatform: Type.Optional(UtmValue('Emitted as utm_source_platform.')),
  },
  { $id: 'ToolUtmBuildRequest' },
);

const Quota = Type.Object(
  {
    limit: Type.Integer(),
    remaining: Type.Integer(),
    used: Type.Integer(),
    unit: Type.Union([Type.Literal('links'), Type.Literal('requests')]),
    resetAt: Type.String({ format: 'date-time', description: 'Next 00:00 UTC.' }),
  },
  { $id: 'ToolQuota', description: 'Daily quota of this API key and tool.' },
);

const RateLimit = Type.Object(
  {
    limit: Type.Integer(),
    remaining: Type.Integer(),
    resetAt: Type.String({ format: 'date-time', description: 'Start of the next UTC minute.' }),
  },
  { $id: 'ToolRateLimit', description: 'Requests per whole UTC minute of this API key and tool.' },
);

export const UtmBuildResponse = Type.Object(
  {
    links: Type.Array(Type.Object({ index: Type.Integer(), url: Type.String(), link: Type.String() })),
    invalid: Type.Array(
      Type.Object({
        index: Type.Integer(),
        url: Type.Unknown({ description: 'The entry as sent.' }),
        reason: Type.Union(
          ['not_a_string', 'empty', 'too_long', 'relative_url', 'unsupported_scheme', 'missing_host', 'malformed'].map((r) =>
            Type.Literal(r),
          ),
        ),
      }),
    ),
    quota: Type.Ref('ToolQuota'),
    rateLimit: Type.Ref('ToolRateLimit'),
  },
  { $id: 'ToolUtmBuildResponse' },
);

export const QrGenerateRequest = Type.Object(
  {
    text: Type.String({ minLength: 1, description: 'Text or link to encode: 1 byte up to the capacity of the error correction level.' }),
    format: Type.Optional(Type.Union([Type.Literal('png'), Type.Literal('svg')], { default: QR_DEFAULT_FORMAT })),
    size: Type.Optional(
      Type.Integer({
        minimum: QR_MIN_SIZE,
        maximum: QR_MAX_SIZE.svg,
        default: QR_DEFAULT_SIZE,
        description: `Image width and height in pixels: ${QR_MIN_SIZE}-${QR_MAX_SIZE.png} for PNG, ${QR_MIN_SIZE}-${QR_MAX_SIZE.svg} for SVG.`,
      }),
    ),
    margin: Type.Optional(
      Type.Integer({ minimum: 0, maximum: QR_MAX_MARGIN, default: QR_DEFAULT_MARGIN, description: 'Quiet zone in modules.' }),
    ),
    errorCorrectionLevel: Type.Optional(
      Type.Union(
        ['L', 'M', 'Q', 'H'].map((l) => Type.Literal(l)),
        { default: QR_DEFAULT_ECL },
      ),
    ),
  },
  { $id: 'ToolQrGenerateRequest' },
);

export const QrGenerateResponse = Type.Object(
  {
    qrcode: Type.Object({ dataUrl: Type.String({ description: 'data:image/png;base64,… or data:image/svg+xml;base64,…' }) }),
    format: Type.Union([Type.Literal('png'), Type.Literal('svg')]),
    quota: Type.Ref('ToolQuota'),
    rateLimit: Type.Ref('ToolRateLimit'),
  },
  { $id: 'ToolQrGenerateResponse' },
);

const ToolError = Type.Object(
  {
    object: Type.Literal('tool_api.error'),
    error: Type.Object({ code: Type.String(), message: Type.String() }),
    quota: Type.Optional(Type.Ref('ToolQuota')),
    rateLimit: Type.Optional(Type.Ref('ToolRateLimit')),
  },
  { $id: 'ToolError' },
);

export const ToolHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ description: 'Optional; 1-255 visible ASCII characters, bare or in double quotes.' })),
});

export const TOOL_SHARED_SCHEMAS: TSchema[] = [Quota, RateLimit, ToolError];

const err = (description: string) => ({ ...Type.Ref('ToolError'), description });

export function toolResponses(success: TSchema) {
  return {
    200: success,
    400: err('invalid_request'),
    401: err('authentication_required, invalid_api_key'),
    403: err('membership_required, insufficient_scope'),
    409: err('idempotency_conflict, idempotency_in_progress'),
    413: err('payload_too_large'),
    429: err('quota_exceeded, rate_limited, concurrency_limited (Retry-After)'),
  };
}
