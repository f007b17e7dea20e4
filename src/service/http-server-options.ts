// How buildHttpServer is set up (its own file so the route modules can read it without importing the server).

import type { MailSender } from './outbox'
import type { RateCounterKind, RateLimitSettings } from './rate-limit'

export interface HttpServerOptions {
  rateLimits?: RateLimitSettings
  /**
   * Where rate-limit windows are counted: 'database' (the rate_windows table, one limit for every instance
   * sharing the database) or 'memory' (this instance alone). Default: 'database' on PostgreSQL, 'memory'
   * on SQLite (one instance, and no write per request).
   */
  rateCounters?: RateCounterKind
  /** Largest JSON body accepted, in bytes (uploads are not bound by it). */
  bodyLimit?: number
  /** Called with every upload's promise so shutdown can wait for it to settle. */
  trackUpload?: (settled: Promise<unknown>) => void
  /** SMTP delivery, for GET /service and the mail test; without it mail counts as not configured. */
  mail?: MailSender
  /** Host names the service answers to (Host header, port ignored); unset: any. See allowed-hosts.ts. */
  allowedHosts?: readonly string[]
  /** Addresses (or CIDR ranges) of reverse proxies whose X-Forwarded-For/-Host are believed. */
  trustProxy?: readonly string[]
  /** Serve https with this certificate chain and private key (PEM) instead of plain http. */
  https?: { cert: Buffer | string; key: Buffer | string }
}
