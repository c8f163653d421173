/**
 * The one record per platform of the API version an adapter calls and of the published description
 * (contracts/<contract>/) it was last checked against. Each adapter exports its record as
 * `<PLATFORM>_API` from its `<platform>.rules.ts`, beside its default endpoints (whose URLs carry the
 * version path); its contract test (test/contracts/<platform>.contract.test.ts) fails when the vendored
 * description changes without this record following it. docs/platforms.md lists the operations.
 */
export interface PlatformApiVersion {
  /** the API version called, as the platform names it ("X API v2", "Pinterest API v5", "Graph API v23.0") */
  version: string;
  /** the folder of the vendored description under contracts/ */
  contract: string;
  /** `info.version` of that description when it was checked */
  descriptionVersion: string;
  /** the date of the description's commit (source.json `committedAt`, YYYY-MM-DD) */
  descriptionDate: string;
  /** the platform's API reference */
  reference: string;
}
