// GET /service (what this service is, whether it can send e-mail) and the mail test that proves it can.
import { type MailTestResult, SERVICE_EXTENSIONS, type ServiceInfo, SMTP_SECURITY } from '../shared/api'
import { storageIsPermanent } from './assets'
import type { ServiceContext } from './context'
import { conflict, notFound } from './errors'
import { mailTest } from './mail-messages'
import type { MailSender } from './outbox'

export const SERVICE_NAME = 'vault-desktop-local'
const MAIL_TEST_TIMEOUT_MS = 20_000

interface MailTestRow {
  to_address: string
  at: string
  delivered: number
  error: string | null
  security: string | null
}

export async function lastMailTest(ctx: ServiceContext, accountId: string): Promise<MailTestResult | null> {
  const row = await ctx.db.get<MailTestRow>(
    'SELECT to_address, at, delivered, error, security FROM mail_tests WHERE account_id = ?',
    accountId,
  )
  if (!row) return null
  const security = SMTP_SECURITY.find((known) => known === row.security)
  return {
    to: row.to_address,
    at: row.at,
    delivered: row.delivered === 1,
    error: row.error,
    ...(security ? { security } : {}),
  }
}

export async function serviceInfo(
  ctx: ServiceContext,
  accountId: string,
  mail: MailSender | undefined,
): Promise<ServiceInfo> {
  return {
    service: SERVICE_NAME,
    extensions: [...SERVICE_EXTENSIONS],
    publicUrl: ctx.publicUrl(),
    mail: { configured: mail?.enabled ?? false, lastTest: await lastMailTest(ctx, accountId) },
    storage: { kind: ctx.blobs.kind, permanent: storageIsPermanent(ctx.blobs) },
    operator: { creditsUrl: ctx.creditsUrl ?? null },
  }
}

/**
 * The operator's credits page as given (--credits-url, creditsUrl in the config): an absolute http(s)
 * address, since the app shows it as a link to open. Anything else stops the start with what to give.
 */
export function checkCreditsUrl(value: string): string {
  const url = URL.canParse(value) ? new URL(value) : null
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new Error(
      `--credits-url must be the full address of the page where owners buy credits, starting with https:// (got "${value}"); the service did not start`,
    )
  }
  return url.href
}

/** Sends a test message to the account's address now, waits for the SMTP answer and records the outcome. */
export async function runMailTest(
  ctx: ServiceContext,
  accountId: string,
  mail: MailSender | undefined,
): Promise<MailTestResult> {
  if (!mail?.enabled) {
    throw conflict(
      'this Vault Service has no SMTP server configured (start it with --smtp smtp://host:port), ' +
        'so guardian invitations and release e-mails stay unsent in its outbox; nothing was sent',
    )
  }
  const account = await ctx.db.get<{ email: string }>('SELECT email FROM accounts WHERE id = ?', accountId)
  if (!account) throw notFound(`account ${accountId} does not exist; nothing was sent`)
  const to = account.email
  const message = mailTest({ accountEmail: to, baseUrl: ctx.publicUrl(), at: ctx.clock().toISOString() })
  let error: string | null = null
  try {
    await mail.sendNow({ to, subject: message.subject, text: message.body }, MAIL_TEST_TIMEOUT_MS)
  } catch (failure) {
    error = String((failure as Error).message ?? failure).slice(0, 500)
  }
  const result: MailTestResult = {
    to,
    at: ctx.clock().toISOString(),
    delivered: error === null,
    error,
    ...(mail.security ? { security: mail.security } : {}),
  }
  await ctx.db.run(
    `INSERT INTO mail_tests (account_id, to_address, at, delivered, error, security) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(account_id) DO UPDATE SET
         to_address = excluded.to_address, at = excluded.at, delivered = excluded.delivered, error = excluded.error,
         security = excluded.security`,
    accountId,
    result.to,
    result.at,
    result.delivered ? 1 : 0,
    result.error,
    result.security ?? null,
  )
  return result
}
