/**
 * The Meta simulator under the descriptions of the hosts it serves: graph.facebook.com and
 * graph-video.facebook.com (contracts/facebook-graph, from Meta's own node specs), graph.instagram.com
 * and api.instagram.com's token endpoint (contracts/instagram-graph) and graph.threads.net
 * (contracts/threads, from the reference pages). Each host's routes get their own guard; the consent
 * dialogs (www.facebook.com, api.instagram.com/oauth/authorize, threads.net) are web pages outside them.
 *
 * A request a description rejects is answered as Graph answers it
 * (https://developers.facebook.com/docs/graph-api/guides/error-handling):
 * - no such operation: 400 code 100 subcode 33 "Unsupported get request" (GraphMethodException)
 * - no token: 400 code 104 "An access token is required to request this resource." (OAuthException)
 * - anything else: 400 code 100 "(#100) <field>: <problem>" (OAuthException), with fbtrace_id
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { describeViolations, loadContract, type RequestVerdict } from '../../../platform/contracts/contracts.js';
import { enforceContract } from '../../contract-guard.js';
import type { SimResult, SimulatorLedger } from '../../simulator-kit.js';
import { graphErrorBody } from './meta-http.js';

interface MetaHost {
  contract: string;
  /** the container status read: compiled before the simulator answers, so a poll is not slowed by it */
  statusRead: string;
  /** route prefixes of the simulator that serve this host, and the path the platform's server sees */
  mounts: Array<{ route: string; strip: string }>;
}

const HOSTS: MetaHost[] = [
  {
    contract: 'facebook-graph',
    statusRead: 'readNode',
    mounts: [
      { route: '/facebook/graph/', strip: '/facebook/graph' },
      { route: '/facebook/video/', strip: '/facebook/video' },
    ],
  },
  {
    contract: 'instagram-graph',
    statusRead: 'readNode',
    mounts: [
      { route: '/instagram/graph/', strip: '/instagram/graph' },
      { route: '/instagram/api/oauth/access_token', strip: '/instagram/api' },
    ],
  },
  { contract: 'threads', statusRead: 'readMedia', mounts: [{ route: '/threads/graph/', strip: '/threads/graph' }] },
];

/**
 * A Graph form body as the description's fields: PHP-style indexed keys (`attached_media[0]`), which
 * Graph reads as one list, are folded into that list.
 */
function graphBodyOf(request: FastifyRequest): unknown {
  const body = request.body;
  if (!body || typeof body !== 'object' || Buffer.isBuffer(body)) return body ?? undefined;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    const indexed = /^([^[\]]+)\[(\d+)\]$/.exec(key);
    if (!indexed) {
      out[key] = value;
      continue;
    }
    const list = (Array.isArray(out[indexed[1]!]) ? out[indexed[1]!] : []) as unknown[];
    list[Number(indexed[2])] = value;
    out[indexed[1]!] = list;
  }
  return out;
}

function graphContractRejection(verdict: RequestVerdict, request: FastifyRequest): SimResult {
  if (verdict.operationId === null) {
    return {
      status: 400,
      body: graphErrorBody({
        message: `Unsupported ${request.method.toLowerCase()} request. ${verdict.operation} is not an operation of this API.`,
        code: 100,
        subcode: 33,
        type: 'GraphMethodException',
      }),
    };
  }
  if (verdict.violations.some((v) => v.field === 'header.authorization' || v.field === 'query.access_token')) {
    return { status: 400, body: graphErrorBody({ message: 'An access token is required to request this resource.', code: 104 }) };
  }
  return { status: 400, body: graphErrorBody({ message: `(#100) ${describeViolations(verdict.violations)}`, code: 100 }) };
}

export function enforceMetaContracts(app: FastifyInstance, ledger: SimulatorLedger): void {
  for (const host of HOSTS) {
    enforceContract(app, {
      contract: host.contract,
      ledger,
      applies: (route) => host.mounts.some((m) => route.startsWith(m.route)),
      platformPath: (path) => {
        const mount = host.mounts.find((m) => path.startsWith(m.route));
        return mount ? path.slice(mount.strip.length) : path;
      },
      bodyOf: graphBodyOf,
      reject: graphContractRejection,
    });
  }
  // validators compile on first use (a few hundred ms for a Graph node read): compile the container
  // status reads before the simulator answers, so the first poll after a container is created is not late
  app.addHook('onReady', async () => {
    for (const host of HOSTS) {
      const contract = await loadContract(host.contract);
      const op = contract.operations().find((o) => o.operationId === host.statusRead);
      if (op) contract.checkRequest({ method: op.method, path: `${contract.basePath}${op.path.replace(/\{[^}]+\}/g, '1')}`, headers: {} });
    }
  });
}
