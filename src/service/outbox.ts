// Every e-mail the service sends is first recorded in the outbox table (in the same transaction as the
// change that caused it), then delivered over SMTP when one is configured, with retries. Once delivered,
// the stored copy loses its tokens (links and access codes): the recipient has them, and a copy of the
// data directory must not.
import nodemailer, { type Transporter } from 'nodemailer'
import type { ServiceContext } from './context'
import { prepared } from './database'
import { redactSecrets } from './secrets'

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
export function queueMail(ctx: ServiceContext, mail: OutgoingMail): void {
  prepared(
    ctx.db,
    `INSERT INTO outbox (vault_id, kind, to_address, subject, body, created_at, next_attempt_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(
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

export function listOutbox(ctx: ServiceContext, vaultId?: string): OutboxMessage[] {
  const rows = (
    vaultId
      ? prepared(ctx.db, 'SELECT * FROM outbox WHERE vault_id = ? ORDER BY id').all(vaultId)
      : prepared(ctx.db, 'SELECT * FROM outbox ORDER BY id').all()
  ) as OutboxRow[]
  return rows.map(toMessage)
}

/** Delivery attempts before a message is no longer retried. */
export const MAX_ATTEMPTS = 8

/** Sends one message right away, outside the outbox (the mail test). */
export interface MailSender {
  readonly enabled: boolean
  /** Resolves once the SMTP server accepted the message; rejects with its answer or after timeoutMs. */
  sendNow(mail: { to: string; subject: string; text: string }, timeoutMs?: number): Promise<void>
}

/** Delivers queued messages over SMTP; one pass at a time, failed messages retried with backoff. */
export class MailDelivery implements MailSender {
  private readonly transport: Transporter | null
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
    const due = prepared(
      this.ctx.db,
      `SELECT * FROM outbox WHERE sent_at IS NULL AND attempts < ? AND next_attempt_at <= ? ORDER BY id LIMIT 100`,
    ).all(MAX_ATTEMPTS, this.ctx.clock().toISOString()) as OutboxRow[]
    let delivered = 0
    for (const row of due) {
      if (this.closed) break
      try {
        await transport.sendMail({
          from: this.from,
          to: row.to_address,
          subject: row.subject,
          text: row.body,
        })
        prepared(
          this.ctx.db,
          'UPDATE outbox SET sent_at = ?, attempts = attempts + 1, last_error = NULL, body = ? WHERE id = ?',
        ).run(this.ctx.clock().toISOString(), redactSecrets(row.body), row.id)
        delivered++
      } catch (error) {
        if (this.closed) break
        const attempts = row.attempts + 1
        const backoffMs = Math.min(2 ** attempts * 30_000, 6 * 3600_000)
        prepared(
          this.ctx.db,
          'UPDATE outbox SET attempts = ?, last_error = ?, next_attempt_at = ? WHERE id = ?',
        ).run(
          attempts,
          String((error as Error).message ?? error).slice(0, 500),
          new Date(this.ctx.clock().getTime() + backoffMs).toISOString(),
          row.id,
        )
      }
    }
    if (delivered > 0 && !this.closed) this.dropOldPageVersions()
    return delivered
  }

  /**
   * The bodies just redacted still exist as older page versions in the write-ahead log: copy the newest
   * versions into the database file and empty the log. When a reader (an admin command) holds the log,
   * SQLite checkpoints what it can; the rest goes at a later pass.
   */
  private dropOldPageVersions(): void {
    try {
      this.ctx.db.pragma('wal_checkpoint(TRUNCATE)')
    } catch (error) {
      console.error('[vault-service] could not checkpoint the database after delivering mail:', error)
    }
  }

  close(): void {
    this.closed = true
    this.transport?.close()
  }
}
