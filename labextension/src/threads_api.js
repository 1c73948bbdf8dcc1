// The Threads panel's requests to threadlab's server extension, with Jupyter's own
// authentication (ServerConnection adds the token and the XSRF header).
import { ServerConnection } from "@jupyterlab/services";

const API = "threadlab/api/threads";

/**
 * @typedef {{id: string, target: string, status: string, origin: string | null,
 *   made_in: string | null, created_at: number, updated_at: number | null,
 *   usage: Record<string, number>, cost_usd: number | null, duration_s: number | null,
 *   forked_from?: string | null}} Listed
 * @typedef {{threads: Listed[], next: string | null}} Page
 * @typedef {{state: Record<string, unknown>, files: Record<string, Record<string, any>>,
 *   left_out: string[]}} SharedView
 * @typedef {{q?: string, status?: string, limit?: number, cursor?: string | null}} PageQuery
 */

/** An answer the panel cannot use, in words a person reads in the panel. */
export class ThreadsError extends Error {
  /**
   * @param {string} message
   * @param {number} status the HTTP status; 0 when the server did not answer
   */
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/**
 * A page of the store's threads, newest first.
 * @param {any} settings the server's connection settings (app.serviceManager.serverSettings)
 * @param {PageQuery} query
 * @returns {Promise<Page>}
 */
export function threadsPage(settings, query) {
  const params = new URLSearchParams();
  if (query.q) params.set("q", query.q);
  if (query.status) params.set("status", query.status);
  if (query.limit) params.set("limit", String(query.limit));
  if (query.cursor) params.set("cursor", query.cursor);
  return getJson(settings, `${API}?${params}`);
}

/**
 * What a thread's player is drawn from, as a shared page holds it.
 * @param {any} settings
 * @param {string} id
 * @returns {Promise<SharedView>}
 */
export function threadView(settings, id) {
  return getJson(settings, `${API}/${encodeURIComponent(id)}/view`);
}

/**
 * @param {any} settings
 * @param {string} path under the server's base URL
 */
async function getJson(settings, path) {
  /** @type {Response} */
  let response;
  try {
    response = await ServerConnection.makeRequest(`${settings.baseUrl}${path}`, {}, settings);
  } catch {
    throw new ThreadsError("The Jupyter server did not answer.", 0);
  }
  /** @type {any} */
  let body = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON: not threadlab's answer (an older server, the extension not enabled).
  }
  if (response.ok && body) return body;
  if (body && typeof body.error === "string") throw new ThreadsError(body.error, response.status);
  throw new ThreadsError(
    `threadlab's server extension did not answer (HTTP ${response.status}): is it enabled in this Jupyter server?`,
    response.status,
  );
}
