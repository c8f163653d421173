/**
 * Unicode code points of a string, as `[...text].length` counts them (a lone surrogate counts one), without
 * building the array of characters: text limits are checked for every target of a batch of thousands and for
 * every URL of a tool request.
 */
export function codePointCount(text: string): number {
  let pairs = 0;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return text.length - pairs;
}
