/** The product's mark (the same drawing as the favicon, web/public/favicon.svg). */
export function Logo({ size = 28 }: { size?: number }) {
  return (
    <svg className="logo" width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect className="logo-bg" width="32" height="32" rx="8" />
      <path className="logo-line" d="M9 21.5l5-5 3.5 3.5L23 12" fill="none" strokeWidth="3" strokeLinecap="round" strokeLinejoin="round" />
      <circle className="logo-dot" cx="23" cy="12" r="2.6" />
    </svg>
  );
}
