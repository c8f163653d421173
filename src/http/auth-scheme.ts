/**
 * Authentication schemes beside the public API's: a path prefix whose specification fixes its own
 * credential, order of checks and error codes (the tool API) plugs into the same onRequest hook as the
 * public API (`installPublicAuth`), the same request id, logging and error catalog, and its own error
 * envelope (`AreaModule.errorEnvelope`). A route names its scheme and requirement in
 * `config: { authBy: { scheme, requirement } }`; a route naming a scheme nobody installed, or a
 * requirement the scheme does not know, fails at registration, so a typo can never leave a route open.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** the route is checked by an installed AuthScheme (not the public API's `auth`) */
    authBy?: { scheme: string; requirement: string };
  }
}

export interface AuthScheme {
  /** the name routes give in `config.authBy.scheme` */
  readonly name: string;
  /** what a route of this scheme may require (`config.authBy.requirement`), checked at registration */
  readonly requirements: readonly string[];
  /**
   * Checks the request's credential against what the route requires, in the scheme's own order and with
   * its own codes (throws AppError, or rejects); sets the scheme's principal on the request. Answers at once
   * (no promise) when it needed nothing from outside the process.
   */
  authorize(request: FastifyRequest, reply: FastifyReply, requirement: string): Promise<void> | undefined;
}
