/**
 * JSON whose integers may exceed 2^53: TikTok answers post ids as int64 JSON numbers
 * (`publicaly_available_post_id: [7301234567890123456]`), which JSON.parse rounds to another id.
 * Our own small scanner (Node 20 has no JSON.parse source access): every integer literal outside a
 * string with more than 15 digits becomes a string of its exact digits before parsing; smaller numbers
 * and everything inside strings are untouched.
 */
const SAFE_DIGITS = 15;

export function quoteLargeIntegers(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      // copy the whole string literal, escapes included
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      let j = i + 1;
      while (j < text.length && /[0-9.eE+-]/.test(text[j]!)) j++;
      const literal = text.slice(i, j);
      const digits = literal.replace('-', '');
      out += /^-?[0-9]+$/.test(literal) && digits.length > SAFE_DIGITS ? `"${literal}"` : literal;
      i = j;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/** JSON.parse that keeps integers beyond 2^53 exact (as strings of their digits). */
export function parseExactJson(text: string): unknown {
  return JSON.parse(quoteLargeIntegers(text));
}
