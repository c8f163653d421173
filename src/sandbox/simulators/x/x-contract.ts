/**
 * The X simulator under the X API v2 description (contracts/x): what it does not cover, how a multipart
 * body reads as fields, and X's answers to a request the description rejects:
 * - no such route: 404 {"errors":[{"message":"Sorry, that page does not exist","code":34}]}
 * - no usable credential: 401 problem {"title":"Unauthorized","type":"about:blank","status":401,"detail":"Unauthorized"}
 * - anything else: 400 invalid-request problem with one `errors` entry per field
 *   (https://docs.x.com/x-api/fundamentals/response-codes-and-errors)
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RequestVerdict } from '../../../platform/contracts/contracts.js';
import { enforceContract } from '../../contract-guard.js';
import type { SimResult, SimulatorLedger } from '../../simulator-kit.js';
import type { MultipartFields } from './x-http.js';

/** Routes outside the description: the OAuth 2.0 consent page, token and revoke endpoints (docs.x.com OAuth 2.0 pages). */
const X_UNDESCRIBED = ['GET /i/oauth2/authorize', 'POST /2/oauth2/token', 'POST /2/oauth2/revoke'] as const;

function isMultipart(body: unknown): body is MultipartFields {
  return !!body && typeof body === 'object' && 'fields' in body && 'files' in body;
}

/** A multipart body as the description's fields: text parts as they are, a file part as a string standing for its bytes. */
function xBodyOf(request: FastifyRequest): unknown {
  const body = request.body;
  if (body === undefined || body === null) return undefined;
  if (isMultipart(body)) {
    const files = Object.fromEntries(Object.entries(body.files).map(([name, bytes]) => [name, `<${bytes.length} bytes>`]));
    return { ...body.fields, ...files };
  }
  if (Buffer.isBuffer(body)) return body.length === 0 ? undefined : `<${body.length} bytes>`;
  return body;
}

function xContractRejection(verdict: RequestVerdict): SimResult {
  if (verdict.operationId === null) {
    return { status: 404, body: { errors: [{ message: 'Sorry, that page does not exist', code: 34 }] } };
  }
  if (verdict.violations.some((v) => v.field === 'header.authorization')) {
    return { status: 401, body: { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' } };
  }
  return {
    status: 400,
    body: {
      errors: verdict.violations.map((v) => ({
        parameters: { [v.field.replace(/^(body|query|path|header)\./, '')]: [] },
        message: `${v.field}: ${v.message}`,
      })),
      title: 'Invalid Request',
      detail: 'One or more parameters to your request was invalid.',
      type: 'https://api.x.com/2/problems/invalid-request',
    },
  };
}

export function enforceXContract(app: FastifyInstance, ledger: SimulatorLedger): void {
  enforceContract(app, { contract: 'x', ledger, undescribed: X_UNDESCRIBED, bodyOf: xBodyOf, reject: xContractRejection });
}
