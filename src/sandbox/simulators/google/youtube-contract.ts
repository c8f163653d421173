/**
 * The YouTube simulator under the YouTube Data API v3 description (contracts/youtube, converted from
 * Google's discovery document): what the description does not cover, and Google's answers to a request
 * it rejects (https://developers.google.com/youtube/v3/docs/errors):
 * - no such method: 404 {"error":{"code":404,"message":"Not Found","errors":[{"reason":"notFound"}],"status":"NOT_FOUND"}}
 * - no credential: 401 reason "required" at the Authorization header (UNAUTHENTICATED)
 * - anything else: 400 INVALID_ARGUMENT, one `errors` entry per field (reason "required" for a missing
 *   parameter, "invalidParameter" for a wrong one, "badRequest" for the body)
 */
import type { FastifyInstance } from 'fastify';
import { type ContractViolation, loadContract, type RequestVerdict } from '../../../platform/contracts/contracts.js';
import { enforceContract } from '../../contract-guard.js';
import type { SimResult, SimulatorLedger } from '../../simulator-kit.js';

/** The consent page and the PubSubHubbub hub are outside the descriptions; OAuth has its own (contracts/google-oauth). */
const YOUTUBE_UNDESCRIBED = ['GET /oauth/o/oauth2/v2/auth', '* /websub/subscribe'] as const;

const isOAuth = (route: string) => route.startsWith('/oauth/');

/** Google's token endpoint answers an invalid request as OAuth 2.0 does (RFC 6749 section 5.2). */
function oauthRejection(verdict: RequestVerdict): SimResult {
  const grant = verdict.violations.some((v) => v.field === 'body.grant_type' && !/required/i.test(v.message));
  return {
    status: 400,
    body: {
      error: grant ? 'unsupported_grant_type' : 'invalid_request',
      error_description: verdict.violations.map((v) => `${v.field}: ${v.message}`).join('; '),
    },
  };
}

function reasonOf(v: ContractViolation): string {
  if (v.field.startsWith('body')) return 'badRequest';
  return /required|missing/i.test(v.message) ? 'required' : 'invalidParameter';
}

function errorOf(v: ContractViolation) {
  const [where, ...rest] = v.field.split('.');
  return {
    message: `${v.field}: ${v.message}`,
    domain: 'global',
    reason: reasonOf(v),
    location: rest.join('.') || where,
    locationType: where === 'query' ? 'parameter' : where === 'header' ? 'header' : 'other',
  };
}

function youtubeContractRejection(verdict: RequestVerdict): SimResult {
  if (verdict.operationId === null) {
    return {
      status: 404,
      body: {
        error: {
          code: 404,
          message: 'Not Found',
          errors: [{ message: 'Not Found', domain: 'global', reason: 'notFound' }],
          status: 'NOT_FOUND',
        },
      },
    };
  }
  if (verdict.violations.some((v) => v.field === 'header.authorization')) {
    const message =
      'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.';
    return {
      status: 401,
      headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/"' },
      body: {
        error: {
          code: 401,
          message,
          errors: [{ message, domain: 'global', reason: 'required', location: 'Authorization', locationType: 'header' }],
          status: 'UNAUTHENTICATED',
        },
      },
    };
  }
  const errors = verdict.violations.map(errorOf);
  return { status: 400, body: { error: { code: 400, message: errors[0]?.message ?? 'Bad Request', errors, status: 'INVALID_ARGUMENT' } } };
}

export function enforceYoutubeContract(app: FastifyInstance, ledger: SimulatorLedger): void {
  enforceContract(app, {
    contract: 'youtube',
    ledger,
    undescribed: YOUTUBE_UNDESCRIBED,
    applies: (route) => !isOAuth(route),
    reject: youtubeContractRejection,
  });
  // oauth2.googleapis.com/token and /revoke, served under /oauth
  enforceContract(app, {
    contract: 'google-oauth',
    ledger,
    undescribed: YOUTUBE_UNDESCRIBED,
    applies: isOAuth,
    platformPath: (path) => path.slice('/oauth'.length),
    reject: oauthRejection,
  });
  // The video resource's schema takes about a second to compile (validators compile on first use):
  // compile the upload's before the simulator answers, not inside the first publish's request.
  app.addHook('onReady', async () => {
    const contract = await loadContract('youtube');
    contract.checkRequest({
      method: 'POST',
      path: '/upload/youtube/v3/videos?uploadType=resumable&part=snippet',
      headers: { authorization: 'Bearer warm-up', 'content-type': 'application/json' },
      body: {},
    });
    contract.checkResponse('youtube.videos.insert.upload', 200, null);
    contract.checkResponse('youtube.videos.insert.upload.session', 200, {});
  });
}
