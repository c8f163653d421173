/**
 * Secrets out of the logs. A query parameter whose name carries token, secret, code, key, signature,
 * password (or sig, state, credential, verifier, auth) is a credential or a one-time secret
 * (`fb_exchange_token`, `client_secret`, `X-Amz-Signature`, an OAuth `code` or `state`), so its value
 * is replaced by [redacted] wherever a URL or a query string is written: in the request log's URL and,
 * as a last line of defence, in every log line any logger writes (`redactingLogOptions`), since error
 * messages and details can carry a URL.
 */
import type { LoggerOptions } from 'pino';

const SECRET_NAME = /token|secret|code|key|signature|password|passwd|sig$|^sig|^state$|credential|verifier|auth/i;

/** Whether a query parameter of this name carries a secret value (case-insensitive, by substring). */
function isSecretParameterName(name: string): boolean {
  return SECRET_NAME.test(name);
}

function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** The URL (or path with a query) with the values of secret query parameters replaced by [redacted]. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const parts = query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    return eq >= 0 && isSecretParameterName(decodedName(rawName)) ? `${rawName}=[redacted]` : pair;
  });
  return `${url.slice(0, q)}?${parts.join('&')}${hash < 0 ? '' : url.slice(hash)}`;
}

// name=value after ?, & or ; up to the next separator, quote, backslash (a JSON escape) or space
const PARAMETER_IN_TEXT = /([?&;])([^=&?;\s"'\\#<>]+)=([^&;\s"'\\#<>]*)/g;

/** Any text (a log line, an error message) with the values of secret query parameters redacted. */
export function redactText(text: string): string {
  if (!text.includes('=')) return text;
  return text.replace(PARAMETER_IN_TEXT, (whole, sep: string, name: string, value: string) =>
    value !== '' && value !== '[redacted]' && isSecretParameterName(decodedName(name)) ? `${sep}${name}=[redacted]` : whole,
  );
}

/** pino options every logger of the service uses: each written line passes through redactText. */
export function redactingLogOptions(): Pick<LoggerOptions, 'hooks'> {
  return { hooks: { streamWrite: redactText } };
}
