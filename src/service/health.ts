// GET /healthz for monitors (uptime checks, load balancers): no key needed, so it says only whether the
// service can read its database and how e-mail delivery is going, never an address, a body or a token.
import packageJson from '../../package.json' with { type: 'json' }
import type { ServiceContext } from './context'
import { prepared } from './database'
import { MAX_ATTEMPTS, type MailSender } from './outbox'

export interface HealthReport {
  status: 'ok' | 'failing'
  version: string
  database: 'ok' | 'unreadable'
  mail: {
    /** not_configured: no SMTP, mail stays in the outbox; retrying: some messages failed and wait for a retry. */
    state: 'not_configured' | 'ok' | 'retrying' | 'unknown'
    /** Messages not delivered yet (waiting, retrying, or out of retries). */
    pending: number
    /** Messages that failed every attempt and are no longer retried (`admin outbox` lists them). */
    gaveUp: number
    lastDeliveredAt: string | null
  }
}

export function healthReport(ctx: ServiceContext, mail: MailSender | undefined): HealthReport {
  const configured = mail?.enabled ?? false
  try {
    const row = prepared(
      ctx.db,
      `SELECT
         COALESCE(SUM(sent_at IS NULL), 0) AS pending,
         COALESCE(SUM(sent_at IS NULL AND attempts > 0), 0) AS failing,
         COALESCE(SUM(sent_at IS NULL AND attempts >= ${MAX_ATTEMPTS}), 0) AS gave_up,
         MAX(sent_at) AS last_sent
       FROM outbox`,
    ).get() as { pending: number; failing: number; gave_up: number; last_sent: string | null }
    return {
      status: 'ok',
      version: packageJson.version,
      database: 'ok',
      mail: {
        state: !configured ? 'not_configured' : row.failing > 0 ? 'retrying' : 'ok',
        pending: row.pending,
        gaveUp: row.gave_up,
        lastDeliveredAt: row.last_sent,
      },
    }
  } catch {
    return {
      status: 'failing',
      version: packageJson.version,
      database: 'unreadable',
      mail: {
        state: configured ? 'unknown' : 'not_configured',
        pending: 0,
        gaveUp: 0,
        lastDeliveredAt: null,
      },
    }
  }
}
