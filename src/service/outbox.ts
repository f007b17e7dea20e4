// Every e-mail the service sends is first recorded in the outbox table (in the same transaction as the
// change that caused it), then delivered over SMTP when one is configured, with retries. Once delivered,
// the stored copy loses its tokens (links and access codes): the recipient has them, and a copy of the
// data directory must not. Instances sharing one database each claim a message before sending it, so
// none is sent twice.
import nodemailer, { type Transporter } from 'nodemailer'
import type { ServiceContext } from './context'
import { newId, redactSecrets } from './secrets'

export interface OutgoingMail {
  vaultId: string | null
  kind: string
  to: string
  subject: string
  body: string
}

export interface OutboxMessage {
  id: number
  vaultId: string | null
  kind: string
  to: string
  subject: string
  body: string
  createdAt: string
  sentAt: string | null
  attempts: number
  lastError: string | null
}

/** Records a message; call inside the transaction of the change it reports. */
export async function queueMail(ctx: ServiceContext, mail: OutgoingMail): Promise<void> {
  await ctx.db.run(
    `INSERT INTO outbox (vault_id, kind, to_address, subject, body, created_at, next_attempt_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    mail.vaultId,
    mail.kind,
    mail.to,
    mail.subject,
    mail.body,
    ctx.clock().toISOString(),
    ctx.clock().toISOString(),
  )
}

interface OutboxRow {
  id: number
  vault_id: string | null
  kind: string
  to_address: string
  subject: string
  body: string
  created_at: string
  sent_at: string | null
  attempts: number
  last_error: string | null
}

const toMessage = (row: OutboxRow): OutboxMessage => ({
  id: row.id,
  vaultId: row.vault_id,
  kind: row.kind,
  to: row.to_address,
  subject: row.subject,
  body: row.body,
  createdAt: row.created_at,
  sentAt: row.sent_at,
  attempts: row.attempts,
  lastError: row.last_error,
})

export async function listOutbox(ctx: ServiceContext, vaultId?: string): Promise<OutboxMessage[]> {
  const rows = vaultId
    ? await ctx.db.all<OutboxRow>('SELECT * FROM outbox WHERE vault_id = ? ORDER BY id', vaultId)
    : await ctx.db.all<OutboxRow>('SELECT * FROM outbox ORDER BY id')
  return rows.map(toMessage)
}

/** Delivery attempts before a message is no longer retried. */
export const MAX_ATTEMPTS = 8

/**
 * How long a claim on a message holds. Far longer than one send takes (its connection, greeting and
 * socket timeouts are 10 to 30 s), so only the claim of an instance that stopped mid-send runs out, and
 * another instance then sends the message.
 */
export const CLAIM_LEASE_MS = 10 * 60_000

/** Sends one message right away, outside the outbox (the mail test). */
export interface MailSender {
  readonly enabled: boolean
  /** Resolves once the SMTP server accepted the message; rejects with its answer or after timeoutMs. */
  sendNow(mail: { to: string; subject: string; text: string }, timeoutMs?: number): Promise<void>
}

/** Delivers queued messages over SMTP; one pass at a time, failed messages retried with backoff. */
export class MailDelivery implements MailSender {
  private readonly transport: Transporter | null
  /** Whose claim a message carries: one random id per MailDelivery, so per service instance. */
  private readonly instanceId = newId('mail')
  private running: Promise<number> | null = null
  private again = false
  private closed = false

  constructor(
    private readonly ctx: ServiceContext,
    smtpUrl: string | undefined,
    private readonly from: string,
  ) {
    // Bounded timeouts: a silent server must not keep a delivery pass (or shutdown) waiting for minutes.
    this.transport = smtpUrl
      ? nodemailer.createTransport({
          url: smtpUrl,
          connectionTimeout: 10_000,
          greetingTimeout: 10_000,
          socketTimeout: 30_000,
        } as Parameters<typeof nodemailer.createTransport>[0])
      : null
  }

  get enabled(): boolean {
    return this.transport !== null
  }

  /** Starts a delivery pass (or queues one after the running pass); resolves with the count delivered. */
  deliverPending(): Promise<number> {
    if (!this.transport || this.closed) return Promise.resolve(0)
    if (this.running) {
      this.again = true
      return this.running
    }
    this.running = this.pass()
      .catch((error) => {
        console.error(
          '[vault-service] mail delivery pass failed; unsent mail is retried at the next tick:',
          error,
        )
        return 0
      })
      .finally(() => {
        this.running = null
        if (this.again) {
          this.again = false
          void this.deliverPending()
        }
      })
    return this.running
  }

  async sendNow(mail: { to: string; subject: string; text: string }, timeoutMs = 20_000): Promise<void> {
    if (!this.transport) throw new Error('no SMTP server is configured')
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the SMTP server gave no answer within ${Math.round(timeoutMs / 1000)} s`)),
        timeoutMs,
      )
    })
    try {
      await Promise.race([this.transport.sendMail({ from: this.from, ...mail }), timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  /** Waits for any pass in progress (used on shutdown and by tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined)
  }

  private async pass(): Promise<number> {
    const transport = this.transport!
    const now = this.ctx.clock().toISOString()
    const due = await this.ctx.db.all<OutboxRow>(
      `SELECT * FROM outbox
         WHERE sent_at IS NULL AND attempts < ? AND next_attempt_at <= ? AND (claimed_until IS NULL OR claimed_until < ?)
         ORDER BY id LIMIT 100`,
      MAX_ATTEMPTS,
      now,
      now,
    )
    let delivered = 0
    for (const row of due) {
      if (this.closed) break
      // Another instance may have taken the message since it was read: only a claimed one is sent.
      if (!(await this.claim(row))) continue
      try {
        await transport.sendMail({
          from: this.from,
          to: row.to_address,
          subject: row.subject,
          text: row.body,
        })
      } catch (error) {
        if (this.closed) {
          // Shutting down: not a failed attempt. The next start retries it at once if the claim can still
          // be let go; once the database is closed, the claim runs out after CLAIM_LEASE_MS instead.
          await this.unclaim(row.id).catch(() => undefined)
          break
        }
        await this.recordFailure(row, error)
        continue
      }
      await this.ctx.db.run(
        `UPDATE outbox SET sent_at = COALESCE(sent_at, ?), attempts = attempts + 1, last_error = NULL, body = ?,
           claimed_by = NULL, claimed_until = NULL
           WHERE id = ?`,
        this.ctx.clock().toISOString(),
        redactSecrets(row.body),
        row.id,
      )
      delivered++
    }
    if (delivered > 0 && !this.closed) await this.dropOldPageVersions()
    return delivered
  }

  /**
   * Claims a message for this instance until the lease runs out: true when it is ours to send. Only while
   * it is unsent, unclaimed (or its claim ran out) and still at the attempt it was read at: a message
   * another instance tried since then has a later next attempt, which this one must not run ahead of.
   */
  private async claim(row: OutboxRow): Promise<boolean> {
    const now = this.ctx.clock()
    const { changes } = await this.ctx.db.run(
      `UPDATE outbox SET claimed_by = ?, claimed_until = ?
         WHERE id = ? AND sent_at IS NULL AND attempts = ? AND (claimed_until IS NULL OR claimed_until < ?)`,
      this.instanceId,
      new Date(now.getTime() + CLAIM_LEASE_MS).toISOString(),
      row.id,
      row.attempts,
      now.toISOString(),
    )
    return changes === 1
  }

  private async unclaim(id: number): Promise<void> {
    await this.ctx.db.run(
      'UPDATE outbox SET claimed_by = NULL, claimed_until = NULL WHERE id = ? AND claimed_by = ?',
      id,
      this.instanceId,
    )
  }

  /** A refused or failed send: the next attempt after a backoff, recorded only while the claim is still ours. */
  private async recordFailure(row: OutboxRow, error: unknown): Promise<void> {
    const attempts = row.attempts + 1
    const backoffMs = Math.min(2 ** attempts * 30_000, 6 * 3600_000)
    await this.ctx.db.run(
      `UPDATE outbox SET attempts = ?, last_error = ?, next_attempt_at = ?, claimed_by = NULL, claimed_until = NULL
         WHERE id = ? AND claimed_by = ?`,
      attempts,
      String((error as Error).message ?? error).slice(0, 500),
      new Date(this.ctx.clock().getTime() + backoffMs).toISOString(),
      row.id,
      this.instanceId,
    )
  }

  /**
   * The bodies just redacted still exist as older page versions in SQLite's write-ahead log: copy the
   * newest versions into the database file and empty the log. When a reader (an admin command) holds the
   * log, SQLite checkpoints what it can; the rest goes at a later pass. (PostgreSQL's vacuum removes old
   * row versions by itself.)
   */
  private async dropOldPageVersions(): Promise<void> {
    if (this.ctx.db.kind !== 'sqlite') return
    try {
      await this.ctx.db.get('PRAGMA wal_checkpoint(TRUNCATE)')
    } catch (error) {
      console.error('[vault-service] could not checkpoint the database after delivering mail:', error)
    }
  }

  close(): void {
    this.closed = true
    this.transport?.close()
  }
}
