/**
 * The TikTok simulator under the TikTok API v2 description (contracts/tiktok, written from the reference
 * pages): what it does not cover, where the upload host's path lives, and TikTok's answers to a request
 * the description rejects (https://developers.tiktok.com/doc/tiktok-api-v2-error-handling):
 * - the OAuth endpoints: 400 {"error":"invalid_request","error_description","log_id"}
 * - no credential: 401 {"data":{},"error":{"code":"access_token_invalid","message","log_id"}}
 * - no such operation: 404 {"error":{"code":"invalid_params",...}}
 * - anything else: 400 {"data":{},"error":{"code":"invalid_params","message","log_id"}}
 */
import type { FastifyInstance } from 'fastify';
import type { RequestVerdict } from '../../../platform/contracts/contracts.js';
import { describeViolations } from '../../../platform/contracts/contracts.js';
import { enforceContract } from '../../contract-guard.js';
import type { SimResult, SimulatorLedger } from '../../simulator-kit.js';
import { randomId } from './tiktok-state.js';

/** The consent page is a web page of www.tiktok.com, outside the API description. */
const TIKTOK_UNDESCRIBED = ['GET /v2/auth/authorize/'] as const;

const logId = () => `${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}${randomId(9).toUpperCase()}`;

/** The simulator serves the upload host (open-upload.tiktokapis.com/video/) under /upload/video/. */
function tiktokPlatformPath(path: string): string {
  return path.startsWith('/upload/video/') ? path.slice('/upload'.length) : path;
}

function tiktokContractRejection(verdict: RequestVerdict): SimResult {
  const message = describeViolations(verdict.violations) || `${verdict.operation} is not an operation of the API`;
  if (verdict.operationId === 'oauthToken' || verdict.operationId === 'oauthRevoke') {
    return { status: 400, body: { error: 'invalid_request', error_description: message, log_id: logId() } };
  }
  if (verdict.operationId === null) {
    return { status: 404, body: { data: {}, error: { code: 'invalid_params', message, log_id: logId() } } };
  }
  if (verdict.violations.some((v) => v.field === 'header.authorization')) {
    return {
      status: 401,
      body: {
        data: {},
        error: { code: 'access_token_invalid', message: 'The access token is invalid or not found in the request.', log_id: logId() },
      },
    };
  }
  return { status: 400, body: { data: {}, error: { code: 'invalid_params', message, log_id: logId() } } };
}

export function enforceTiktokContract(app: FastifyInstance, ledger: SimulatorLedger): void {
  enforceContract(app, {
    contract: 'tiktok',
    ledger,
    undescribed: TIKTOK_UNDESCRIBED,
    platformPath: tiktokPlatformPath,
    reject: tiktokContractRejection,
  });
}
