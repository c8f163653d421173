/** The distinct entries of a comma-separated list (scope lists given to the CLI), trimmed, empty ones dropped, in first-seen order. */
export function commaList(value: string): string[] {
  return [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}
