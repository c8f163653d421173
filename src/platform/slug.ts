/** URL slugs of names (brands, products, publishing profiles): lowercase ASCII letters, digits and dashes. */
export function slugify(value: string): string {
  const s = value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120);
  return s || 'item';
}
