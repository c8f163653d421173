/** Validation and defaults of a QR code request (documented in docs/tool-api.md). */

import { isPlainObject, isWellFormedText } from '../tool-text.js';

export type QrFormat = 'svg' | 'png';
export type QrErrorCorrectionLevel = 'L' | 'M' | 'Q' | 'H';

export interface QrRequest {
  text: string;
  format: QrFormat;
  size: number;
  margin: number;
  errorCorrectionLevel: QrErrorCorrectionLevel;
}

/** PNG is the default: data URLs usually end up in <img> tags and e-mail clients that do not render SVG. */
export const QR_DEFAULT_FORMAT: QrFormat = 'png';
export const QR_DEFAULT_SIZE = 256;
/** Four modules is the quiet zone the QR specification asks for. */
export const QR_DEFAULT_MARGIN = 4;
/** M restores about 15% damage, a common balance between density and robustness. */
export const QR_DEFAULT_ECL: QrErrorCorrectionLevel = 'M';
export const QR_MIN_SIZE = 64;
export const QR_MAX_SIZE: Record<QrFormat, number> = { png: 2048, svg: 4096 };
export const QR_MAX_MARGIN = 16;
/** No QR symbol holds more than 7,089 characters (numeric mode, level L); longer text is refused up front. */
const QR_MAX_TEXT_CHARS = 7089;

const ECLS: ReadonlySet<string> = new Set(['L', 'M', 'Q', 'H']);

export type QrParseResult = { ok: true; value: QrRequest } | { ok: false; message: string };

export function parseQrRequest(body: unknown): QrParseResult {
  if (!isPlainObject(body)) return { ok: false, message: 'Request body must be a JSON object.' };
  const { text, format = QR_DEFAULT_FORMAT, size = QR_DEFAULT_SIZE, margin = QR_DEFAULT_MARGIN } = body;
  const ecl = body.errorCorrectionLevel ?? QR_DEFAULT_ECL;
  if (typeof text !== 'string' || text.length === 0) {
    return {
      ok: false,
      message: '`text` is required and must be a non-empty string.',
    };
  }
  if (text.length > QR_MAX_TEXT_CHARS) {
    return {
      ok: false,
      message: `\`text\` must hold at most ${QR_MAX_TEXT_CHARS} characters.`,
    };
  }
  if (!isWellFormedText(text)) return { ok: false, message: '`text` must be valid Unicode text.' };
  if (format !== 'svg' && format !== 'png') return { ok: false, message: '`format` must be "svg" or "png".' };
  const maxSize = QR_MAX_SIZE[format];
  if (typeof size !== 'number' || !Number.isInteger(size) || size < QR_MIN_SIZE || size > maxSize) {
    return {
      ok: false,
      message: `\`size\` must be an integer from ${QR_MIN_SIZE} to ${maxSize} for ${format}.`,
    };
  }
  if (typeof margin !== 'number' || !Number.isInteger(margin) || margin < 0 || margin > QR_MAX_MARGIN) {
    return {
      ok: false,
      message: `\`margin\` must be an integer from 0 to ${QR_MAX_MARGIN}.`,
    };
  }
  if (typeof ecl !== 'string' || !ECLS.has(ecl)) {
    return {
      ok: false,
      message: '`errorCorrectionLevel` must be one of L, M, Q, H.',
    };
  }
  return {
    ok: true,
    value: {
      text,
      format,
      size,
      margin,
      errorCorrectionLevel: ecl as QrErrorCorrectionLevel,
    },
  };
}
