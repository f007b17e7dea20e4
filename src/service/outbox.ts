// Every e-mail the service sends is first recorded in the outbox table (in the same transaction as the
// change that caused it), then delivered over SMTP when one is configured, with retries. Once delivered,
// the stored copy loses its tokens (links and access codes): the recipient has them, and a copy of the
// data directory must not. Instances sharing one database each claim a message before sending it, so
// none is sent twice. Until then the stored body is sealed under the data folder's mail key (secrets.ts), so
// the database never holds a usable token. SMTP runs over TLS, required, unless the server is on this
// machine or the operator opted out by name (smtp.insecurePlaintext).
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import nodemailer, { type Transporter } from 'nodemailer'
import type { SmtpSecurity } from '../shared/api'
import { isLoopbackHostName } from './allowed-hosts'
import type { ServiceContext } from './context'
import {
  MAIL_KEY_FILE_NAME,
  type MailKey,
  mailKeyOf,
  newId,
  openMailBody,
  redactSecrets,
  sealedKeyId,
  sealMailBody,
} from './secrets'
import { readSetting, writeSetting } from './sql-store'

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

/** The id of the mail key the database's bodies are sealed under (a hash, useless without the key). */
export const MAIL_KEY_SETTING = 'mail_key_id'

const mailKeyFileOf = (ctx: ServiceContext) => ctx.mailKeyFile ?? join(ctx.dataDir, MAIL_KEY_FILE_NAME)
const mailKeyOfContext = (ctx: ServiceContext) => mailKeyOf(mailKeyFileOf(ctx))

/**
 * At start: the mail key this instance seals with must be the database's. On PostgreSQL another instance
 * may be running with the recorded key, so a missing or different key refuses to start (a new key would
 * split the outbox: each instance unable to send the other's mail). On SQLite (one instance) a lost key is
 * replaced, and the log says which unsent mail it strands.
 */
export async function adoptMailKey(ctx: ServiceContext): Promise<void> {
  const file = mailKeyFileOf(ctx)
  let recorded = await readSetting(ctx.db, MAIL_KEY_SETTING)
  const lostKey = (id: string) =>
    `the database's outbox is sealed with the mail key ${id}, which ${file} ${existsSync(file) ? 'is not' : 'does not hold (the file is missing)'}: ` +
    'every instance sharing this database needs the same key. Copy the mail key file from an instance that uses this ' +
    `database to ${file} (or point storage.mailKeyFile in the config at a copy). If that key is lost for good, ` +
    `run \`DELETE FROM settings WHERE key = '${MAIL_KEY_SETTING}'\` on the database: the unsent mail sealed under it is then never sent.`
  if (recorded !== undefined && ctx.db.kind === 'postgres' && !existsSync(file))
    throw new Error(lostKey(recorded))
  const mailKey = mailKeyOf(file)
  if (recorded === undefined) {
    // Instances starting together: the first key recorded wins, the others see it below.
    await ctx.db.run(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING',
      MAIL_KEY_SETTING,
      mailKey.id,
    )
    recorded = await readSetting(ctx.db, MAIL_KEY_SETTING)
  }
  if (recorded === mailKey.id || recorded === undefined) return sealClearBodies(ctx)
  if (ctx.db.kind === 'postgres') throw new Error(lostKey(recorded))
  const stranded = await ctx.db.get<{ n: number }>(
    'SELECT COUNT(*) AS n FROM outbox WHERE sent_at IS NULL AND body LIKE ?',
    `sealed-1.${recorded}.%`,
  )
  console.error(
    `[vault-service] the mail key ${file} is new (the database's outbox was sealed with ${recorded}): ` +
      `${stranded?.n ?? 0} unsent e-mail(s) sealed with the old key cannot be sent; put back the old key file to send them`,
  )
  await writeSetting(ctx.db, MAIL_KEY_SETTING, mailKey.id)
  await sealClearBodies(ctx)
}

/**
 * Unsent mail queued by a version that stored bodies in clear (their links carry usable tokens) is sealed
 * at start like new mail. Delivered rows were redacted already and stay as they are.
 */
async function sealClearBodies(ctx: ServiceContext): Promise<void> {
  const clear = await ctx.db.all<{
    id: number
    kind: string
    to_address: string
    vault_id: string | null
    body: string
  }>(
    `SELECT id, kind, to_address, vault_id, body FROM outbox WHERE sent_at IS NULL AND body NOT LIKE 'sealed-1.%'`,
  )
  if (clear.length === 0) return
  const mailKey = mailKeyOfContext(ctx)
  for (const row of clear) {
    const sealed = sealMailBody(
      mailKey,
      row.body,
      bindingOf({ kind: row.kind, to: row.to_address, vaultId: row.vault_id }),
    )
    // Only if still unsent and unchanged: another instance may be delivering it right now.
    await ctx.db.run(
      'UPDATE outbox SET body = ? WHERE id = ? AND sent_at IS NULL AND body = ?',
      sealed,
      row.id,
      row.body,
    )
  }
  console.error(`[vault-service] sealed ${clear.length} unsent e-mail(s) stored in clear by an older version`)
  if (ctx.db.kind === 'sqlite') await ctx.db.get('PRAGMA wal_checkpoint(TRUNCATE)')
}

/** What a sealed body is bound to: moved to another row, or re-addressed in the database, it no longer opens. */
const bindingOf = (mail: { kind: string; to: string; vaultId: string | null }) =>
  `${mail.kind}\0${mail.to}\0${mail.vaultId ?? ''}`

/** Records a message (its body sealed); call inside the transaction of the change it reports. */
export async function queueMail(ctx: ServiceContext, mail: OutgoingMail): Promise<void> {
  const body = sealMailBody(mailKeyOfContext(ctx), mail.body, bindingOf(mail))
  await ctx.db.run(
    `INSERT INTO outbox (vault_id, kind, to_address, subject, body, created_at, next_attempt_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    mail.vaultId,
    mail.kind,
    mail.to,
    mail.subject,
    body,
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

const rowBinding = (row: OutboxRow) =>
  bindingOf({ kind: row.kind, to: row.to_address, vaultId: row.vault_id })

/** A stored row's body in clear, or why it cannot be opened. */
function readableBody(mailKey: MailKey, row: OutboxRow): string {
  try {
    return openMailBody(mailKey, row.body, rowBinding(row))
  } catch (error) {
    return `[cannot be read: ${(error as Error).message}]`
  }
}

const toMessage = (mailKey: MailKey, row: OutboxRow): OutboxMessage => ({
  id: row.id,
  vaultId: row.vault_id,
  kind: row.kind,
  to: row.to_address,
  subject: row.subject,
  body: readableBody(mailKey, row),
  createdAt: row.created_at,
  sentAt: row.sent_at,
  attempts: row.attempts,
  lastError: row.last_error,
})

export async function listOutbox(ctx: ServiceContext, vaultId?: string): Promise<OutboxMessage[]> {
  const rows = vaultId
    ? await ctx.db.all<OutboxRow>('SELECT * FROM outbox WHERE vault_id = ? ORDER BY id', vaultId)
    : await ctx.db.all<OutboxRow>('SELECT * FROM outbox ORDER BY id')
  const mailKey = mailKeyOfContext(ctx)
  return rows.map((row) => toMessage(mailKey, row))
}

/** Delivery attempts before a message is no longer retried. */
export const MAX_ATTEMPTS = 8

/**
 * How long a claim on a message holds. Far longer than one send takes (its connection, greeting and
 * socket timeouts are 10 to 30 s), so only the claim of an instance that stopped mid-send runs out, and
 * another instance then sends the message.
 */
export const CLAIM_LEASE_MS = 10 * 60_000

/**
 * How mail reaches the SMTP server. tls: TLS from the first byte (smtps://) or STARTTLS, required (a server
 * that does not offer it gets no password and no message: a stripped STARTTLS cannot downgrade it);
 * loopback: a server on this machine, reached without a network, STARTTLS used when offered; insecure-plaintext:
 * the operator opted out by name, so the password and every link may travel in clear.
 */
export type { SmtpSecurity }

export function smtpSecurityOf(smtpUrl: string, insecurePlaintext = false): SmtpSecurity {
  const url = new URL(smtpUrl)
  if (url.protocol === 'smtps:') return 'tls'
  if (isLoopbackHostName(url.hostname)) return 'loopback'
  return insecurePlaintext ? 'insecure-plaintext' : 'tls'
}

/** One sentence for the log, init and the mail test: how this SMTP connection is protected. */
export function smtpSecurityNote(security: SmtpSecurity): string {
  switch (security) {
    case 'tls':
      return 'over TLS (required: a server that does not offer it gets no password and no message)'
    case 'loopback':
      return 'to a server on this machine (loopback: no network in between; STARTTLS used when offered)'
    case 'insecure-plaintext':
      return 'WITHOUT required TLS (smtp.insecurePlaintext): the SMTP password and every link may travel in clear'
  }
}

/** nodemailer's options for the URL under the security chosen, with bounded timeouts. */
export function smtpTransportOptions(
  smtpUrl: string,
  security: SmtpSecurity,
  timeouts = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 },
) {
  return {
    url: smtpUrl,
    // STARTTLS even when the server does not announce it (a stripped announcement), and no send without it.
    ...(security === 'tls' ? { requireTLS: true } : {}),
    ...timeouts,
  } as Parameters<typeof nodemailer.createTransport>[0]
}

/** A send refused for want of TLS says so, and what to do; other errors pass unchanged. */
export function explainTlsRefusal(error: unknown, smtpUrl: string): unknown {
  const failure = error as { code?: string; message?: string }
  if (failure?.code !== 'ETLS' && !/STARTTLS/i.test(failure?.message ?? '')) return error
  const url = new URL(smtpUrl)
  return Object.assign(
    new Error(
      `the SMTP server at ${url.hostname}:${url.port || 587} did not take STARTTLS (${failure.message}), and TLS is required: ` +
        'nothing was sent, no password and no message. Use a server that offers TLS (smtps:// on port 465, or STARTTLS), ' +
        'or, to send in clear on purpose, set "insecurePlaintext": true in the config\'s smtp settings (serve --smtp-insecure-plaintext)',
    ),
    { code: 'ETLS' },
  )
}

/** Sends one message right away, outside the outbox (the mail test). */
export interface MailSender {
  readonly enabled: boolean
  /** How the SMTP connection is protected; null without SMTP. */
  readonly security: SmtpSecurity | null
  /** Resolves once the SMTP server accepted the message; rejects with its answer or after timeoutMs. */
  sendNow(mail: { to: string; subject: string; text: string }, timeoutMs?: number): Promise<void>
}

/** Delivers queued messages over SMTP; one pass at a time, failed messages retried with backoff. */
export class MailDelivery implements MailSender {
  private readonly transport: Transporter | null
  readonly security: SmtpSecurity | null
  private readonly mailKey: MailKey
  /** Messages sealed under another mail key were already reported in the log. */
  private foreignKeyReported = false
  /** Whose claim a message carries: one random id per MailDelivery, so per service instance. */
  private readonly instanceId = newId('mail')
  private running: Promise<number> | null = null
  private again = false
  private closed = false

  constructor(
    private readonly ctx: ServiceContext,
    private readonly smtpUrl: string | undefined,
    private readonly from: string,
    options: { insecurePlaintext?: boolean } = {},
  ) {
    this.mailKey = mailKeyOfContext(ctx)
    this.security = smtpUrl ? smtpSecurityOf(smtpUrl, options.insecurePlaintext) : null
    // Bounded timeouts: a silent server must not keep a delivery pass (or shutdown) waiting for minutes.
    this.transport =
      smtpUrl && this.security
        ? nodemailer.createTransport(smtpTransportOptions(smtpUrl, this.security))
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
    } catch (error) {
      throw explainTlsRefusal(error, this.smtpUrl!)
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
    let foreign = 0
    for (const row of due) {
      if (this.closed) break
      // Sealed under another instance's mail key: left for an instance that has it.
      const keyId = sealedKeyId(row.body)
      if (keyId !== null && keyId !== this.mailKey.id) {
        foreign++
        continue
      }
      // Another instance may have taken the message since it was read: only a claimed one is sent.
      if (!(await this.claim(row))) continue
      let text: string
      try {
        text = openMailBody(this.mailKey, row.body, rowBinding(row))
      } catch (error) {
        await this.recordFailure(row, error)
        continue
      }
      try {
        await transport.sendMail({
          from: this.from,
          to: row.to_address,
          subject: row.subject,
          text,
        })
      } catch (error) {
        if (this.closed) {
          // Shutting down: not a failed attempt. The next start retries it at once if the claim can still
          // be let go; once the database is closed, the claim runs out after CLAIM_LEASE_MS instead.
          await this.unclaim(row.id).catch(() => undefined)
          break
        }
        await this.recordFailure(row, explainTlsRefusal(error, this.smtpUrl!))
        continue
      }
      await this.ctx.db.run(
        `UPDATE outbox SET sent_at = COALESCE(sent_at, ?), attempts = attempts + 1, last_error = NULL, body = ?,
           claimed_by = NULL, claimed_until = NULL
           WHERE id = ?`,
        this.ctx.clock().toISOString(),
        redactSecrets(text),
        row.id,
      )
      delivered++
    }
    if (foreign > 0 && !this.foreignKeyReported) {
      this.foreignKeyReported = true
      console.error(
        `[vault-service] ${foreign} unsent e-mail(s) are sealed under another mail key than ${this.mailKey.file} ` +
          '(this instance leaves them to one that has it): instances sharing a database need the same mail key; ' +
          'copy that file from the instance that queued them. Without that key they are never sent.',
      )
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
   * The bodies just replaced (sealed, so holding no usable token) still exist as older page versions in
   * SQLite's write-ahead log: copy the newest versions into the database file and empty the log. When a reader (an admin command) holds the
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
