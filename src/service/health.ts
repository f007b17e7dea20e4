// GET /healthz for monitors (uptime checks, load balancers): no key needed, so it says only whether the
// service can read its database and how e-mail delivery is going, never an address, a body or a token.
import packageJson from '../../package.json' with { type: 'json' }
import type { ServiceContext } from './context'
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
  /** Only for a store whose blobs become permanent after put (Arweave): assets not confirmed yet. */
  storage?: {
    kind: 'arweave'
    unconfirmed: number
    /** When the oldest unconfirmed asset was stored: a monitor alerts when it is hours old. */
    oldestUnconfirmedSince: string | null
    /** Blobs sent again (paid anew) because the network dropped them, over all current assets. */
    resends: number
    /** Assets dropped again after the most re-sends the service pays for: the operator must look. */
    atResendCap: number
  }
}

export async function healthReport(ctx: ServiceContext, mail: MailSender | undefined): Promise<HealthReport> {
  const configured = mail?.enabled ?? false
  try {
    // CASE rather than summing comparisons: PostgreSQL cannot SUM booleans. Number(): PostgreSQL counts
    // are 64-bit, which a driver may hand back as text.
    const row = await ctx.db.get<{
      pending: number | string
      failing: number | string
      gave_up: number | string
      last_sent: string | null
    }>(
      `SELECT
         COUNT(CASE WHEN sent_at IS NULL THEN 1 END) AS pending,
         COUNT(CASE WHEN sent_at IS NULL AND attempts > 0 THEN 1 END) AS failing,
         COUNT(CASE WHEN sent_at IS NULL AND attempts >= ${MAX_ATTEMPTS} THEN 1 END) AS gave_up,
         MAX(sent_at) AS last_sent
       FROM outbox`,
    )
    if (!row) throw new Error('the outbox summary returned no row')
    const storage = await storageSummary(ctx)
    return {
      status: 'ok',
      version: packageJson.version,
      database: 'ok',
      mail: {
        state: !configured ? 'not_configured' : Number(row.failing) > 0 ? 'retrying' : 'ok',
        pending: Number(row.pending),
        gaveUp: Number(row.gave_up),
        lastDeliveredAt: row.last_sent,
      },
      ...(storage ? { storage } : {}),
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

async function storageSummary(ctx: ServiceContext): Promise<HealthReport['storage']> {
  if (!ctx.blobs.confirm || ctx.blobs.kind !== 'arweave') return undefined
  const row = await ctx.db.get<{
    unconfirmed: number | string
    oldest: string | null
    resends: number | string | null
    at_cap: number | string
  }>(
    `SELECT
       COUNT(CASE WHEN storage_confirmed_at IS NULL THEN 1 END) AS unconfirmed,
       MIN(CASE WHEN storage_confirmed_at IS NULL THEN created_at END) AS oldest,
       SUM(storage_resends) AS resends,
       COUNT(CASE WHEN storage_confirmed_at IS NULL AND storage_resend_capped_at IS NOT NULL THEN 1 END) AS at_cap
     FROM assets`,
  )
  return {
    kind: 'arweave',
    unconfirmed: Number(row?.unconfirmed ?? 0),
    oldestUnconfirmedSince: row?.oldest ?? null,
    resends: Number(row?.resends ?? 0),
    atResendCap: Number(row?.at_cap ?? 0),
  }
}
