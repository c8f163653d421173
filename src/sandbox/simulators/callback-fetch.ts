/**
 * How the simulators call the service back (handshakes, CRC checks, media downloads, event deliveries),
 * as a platform's servers do: each call on a connection of its own. Through the process-wide pool of the
 * global fetch, a call could reuse an idle kept-alive connection at the moment the service closed it (its
 * keep-alive timeout), and fail at once with "other side closed": a handshake a platform would have
 * completed was then refused, now and then, under load.
 */
import { Agent, fetch } from 'undici';

/** pipelining 0: no keep-alive, the connection is closed after its one request */
const oneConnectionPerCall = new Agent({ pipelining: 0 });

export function callbackFetch(url: string | URL, init: Omit<NonNullable<Parameters<typeof fetch>[1]>, 'dispatcher'> = {}) {
  return fetch(url, { ...init, dispatcher: oneConnectionPerCall });
}
