/**
 * The Pinterest simulator under the Pinterest API v5 description (contracts/pinterest): what it does not
 * cover, and Pinterest's answers to a request the description rejects, in its error shape {code, message}
 * (https://developers.pinterest.com/docs/api/v5/#tag/Response-codes):
 * - no such route: 404 {code: 404, message: "Not found"} (Pinterest's answer to an unknown path)
 * - no usable credential: 401 {code: 2, message: "Authentication failed."}
 * - anything else: 400 {code: 1, message: "Invalid parameters. <field>: <reason>; ..."}
 */
import type { FastifyInstance } from 'fastify';
import type { RequestVerdict } from '../../../platform/contracts/contracts.js';
import { enforceContract } from '../../contract-guard.js';
import type { SimResult, SimulatorLedger } from '../../simulator-kit.js';
import { PIN_ERRORS } from './pinterest-http.js';

/**
 * Routes outside the description: the consent page (www.pinterest.com/oauth/) and the upload_url that
 * POST /v5/media hands out (a storage bucket's presigned form POST, not the API).
 */
const PINTEREST_UNDESCRIBED = ['GET /web/oauth/', 'POST /media-upload/'] as const;

function pinterestContractRejection(verdict: RequestVerdict): SimResult {
  if (verdict.operationId === null) return { status: 404, body: { code: 404, message: 'Not found' } };
  if (verdict.violations.some((v) => v.field === 'header.authorization')) {
    return { status: 401, body: { code: PIN_ERRORS.authenticationFailed, message: 'Authentication failed.' } };
  }
  const reasons = verdict.violations.map((v) => `${v.field}: ${v.message}`).join('; ');
  return { status: 400, body: { code: PIN_ERRORS.invalidParameters, message: `Invalid parameters. ${reasons}` } };
}

export function enforcePinterestContract(app: FastifyInstance, ledger: SimulatorLedger): void {
  enforceContract(app, { contract: 'pinterest', ledger, undescribed: PINTEREST_UNDESCRIBED, reject: pinterestContractRejection });
}
