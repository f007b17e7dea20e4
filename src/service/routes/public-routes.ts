// Routes anyone may call without a key: the 410s for endpoints v2.0 removed, the OpenAPI document, and
// the health check monitors poll.

import type { FastifyInstance } from 'fastify'
import { API_PREFIXES, REMOVED_V1_ENDPOINTS } from '../../shared/api'
import type { ServiceContext } from '../context'
import { healthReport } from '../health'
import type { HttpServerOptions } from '../http-server-options'
import { vaultApiDocumentJson } from '../openapi/vault-api-document'
import { sendError } from './api-route'

export function registerPublicRoutes(
  app: FastifyInstance,
  ctx: ServiceContext,
  options: HttpServerOptions,
): void {
  // v1.0 endpoints v2.0 removed: 410 naming the spec's replacement, so an old client learns what to call
  // instead of meeting a bare 404. No key is needed to learn that an endpoint is gone.
  for (const prefix of API_PREFIXES) {
    for (const removed of REMOVED_V1_ENDPOINTS) {
      const urls = [`${prefix}${removed.path}`, ...(removed.below ? [`${prefix}${removed.path}/*`] : [])]
      for (const url of urls) {
        for (const method of removed.methods) {
          const message = `${method} ${prefix}${removed.path}${removed.below ? '/*' : ''} was removed in version 2.0 of the Vault API; replacement: ${removed.replacement.replaceAll('{prefix}', prefix)}. Update the client to v2.0 (described at ${prefix}/openapi.json)`
          app.route({ method, url, handler: (request, reply) => sendError(request, reply, 410, message) })
        }
      }
    }
  }

  // The interface's description (OpenAPI 3.1): public like the spec it describes, so tools fetch it without a key.
  for (const prefix of API_PREFIXES) {
    app.get(`${prefix}/openapi.json`, (_request, reply) =>
      reply.type('application/json; charset=utf-8').send(vaultApiDocumentJson()),
    )
  }

  // Outside /api: not part of the spec, and monitors call it without a key.
  app.get('/healthz', async (_request, reply) => {
    const report = await healthReport(ctx, options.mail)
    return reply
      .code(report.status === 'ok' ? 200 : 503)
      .header('cache-control', 'no-store')
      .send(report)
  })
}
