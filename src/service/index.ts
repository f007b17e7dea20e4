// The local Vault Service, embeddable: startService() opens the data directory, serves HTTP on loopback,
// runs the release scheduler and delivers e-mail. The app, the tests and the CLI all start it this way.
import type { AddressInfo } from 'node:net'
import { refundAbandonedReservations } from './accounts'
import { type AdminOperations, adminOperations } from './admin'
import { isHostAllowed, parseAllowedHosts } from './allowed-hosts'
import { isBlobReferenced } from './assets'
import { lockDataDir } from './data-dir-lock'
import { buildHttpServer } from './http-server'
import { adoptMailKey, MailDelivery, smtpSecurityNote } from './outbox'
import { tightenTree } from './private-files'
import type { RateLimitSettings } from './rate-limit'
import { runSchedulerPass, type TickReport } from './release'
import { type BlobChoice, openServiceContext, PUBLIC_URL_SETTING } from './service-context'
import { checkCreditsUrl } from './service-info'
import { writeSetting } from './sql-store'
import { confirmStoredBlobs } from './storage-confirmation'

export { AdminError } from './accounts'
export type { AdminOperations } from './admin'
export { DataDirInUseError } from './data-dir-lock'
export type { OutboxMessage } from './outbox'
export type { RateLimitSettings } from './rate-limit'
export type { TickReport } from './release'
export { openServiceContext } from './service-context'
export type { VaultView } from './vaults'

export interface ServiceOptions {
  /** This instance's own folder: the SQLite database and blobs by default, staged uploads always. */
  dataDir: string
  /**
   * postgres://user:password@host/db: keep the state there instead of in the data folder's SQLite file,
   * so several instances (each with its own data folder) can serve one set of vaults.
   */
  postgresUrl?: string
  /** Blobs in a folder all instances share, or on Arweave; by default in <data-dir>/blobs. */
  blobs?: BlobChoice
  /**
   * The key outbox e-mails are sealed with at rest; by default <dataDir>/mail.key. Instances sharing a
   * PostgreSQL database must use the same key (a copy on each machine).
   */
  mailKeyFile?: string
  /** 0 (the default) picks a free port. */
  port?: number
  host?: string
  /** Injectable clock: tests move time forward with it. Defaults to the real time. */
  clock?: () => Date
  /** smtp://host:port (or smtps://user:pass@host); without it mail is only recorded in the outbox. */
  smtp?: string
  /**
   * Send over SMTP without required TLS to a server beyond this computer (the password and every link may
   * travel in clear). Off: TLS is required (smtps://, or STARTTLS that a server must accept).
   */
  smtpInsecurePlaintext?: boolean
  /** Sender address of outgoing mail. */
  from?: string
  /**
   * Per-pattern overrides of the spec's per-minute limits and of `authFailures` (failed authentications per
   * client address and minute, default 60), or false to disable all rate limiting.
   */
  rateLimits?: RateLimitSettings
  /**
   * Host names the service answers to (the Host header without its port); others get 400. Unset: any
   * name. Set it when the service is reachable beyond this computer, against DNS rebinding.
   */
  allowedHosts?: string[]
  /** Reverse proxies (addresses or CIDR ranges) whose X-Forwarded-For and X-Forwarded-Host are believed. */
  trustProxy?: string[]
  /** Serve https with this certificate chain and private key (PEM); plain http without it. */
  tls?: { cert: Buffer | string; key: Buffer | string }
  /** Largest JSON body in bytes (default 64 KiB). */
  bodyLimit?: number
  /** The heir's recovery page (HTML) to serve at /recover; by default the one built into out/recovery-page. */
  recoveryPage?: string
  /** Base URL for links in e-mails; defaults to the listening URL. */
  publicUrl?: string
  /** How often the scheduler runs (default 60 s); it also runs once at start. */
  tickIntervalMs?: number
  /** The operator's page where owners buy credits; GET /service tells the app (null without it). */
  creditsUrl?: string
  /** Largest upload in bytes; defaults to the spec's 5 GB (tests lower it to exercise the limit). */
  maxFileBytes?: number
  /** How long close() lets in-flight requests finish before cutting them (default 5 s). */
  shutdownGraceMs?: number
}

export interface RunningService {
  url: string
  admin: AdminOperations
  /** Runs one scheduler pass (at `now`, or the clock's time), then delivers the mail it queued. */
  tick(now?: Date): Promise<TickReport>
  close(): Promise<void>
}

export async function startService(options: ServiceOptions): Promise<RunningService> {
  // Checked before anything is opened, so a typo fails at once and leaves nothing locked.
  const allowedHosts = options.allowedHosts ? parseAllowedHosts(options.allowedHosts) : null
  const creditsUrl = options.creditsUrl !== undefined ? checkCreditsUrl(options.creditsUrl) : undefined
  const clock = options.clock ?? (() => new Date())
  // The lock comes first: a second service must not even migrate a database another one is using.
  const unlock = lockDataDir(options.dataDir)
  let opened: Awaited<ReturnType<typeof openServiceContext>>
  try {
    opened = await openServiceContext(options.dataDir, clock, {
      ...(options.postgresUrl ? { postgresUrl: options.postgresUrl } : {}),
      ...(options.blobs ? { blobs: options.blobs } : {}),
      ...(options.mailKeyFile ? { mailKeyFile: options.mailKeyFile } : {}),
    })
  } catch (error) {
    unlock()
    throw error
  }
  const { ctx, db } = opened
  try {
    // A data directory from before private modes (or copied with default ones) becomes private now.
    tightenTree(options.dataDir)
  } catch (error) {
    await db.close()
    unlock()
    throw error
  }
  // Uploads interrupted by a crash are never resumed, and a blob without an asset was never committed.
  if (options.maxFileBytes !== undefined) ctx.maxFileBytes = options.maxFileBytes
  if (creditsUrl) ctx.creditsUrl = creditsUrl
  if (options.recoveryPage) ctx.recoveryPageFile = options.recoveryPage
  try {
    await ctx.blobs.clearTemp()
    await ctx.blobs.collectGarbage((sha) => isBlobReferenced(ctx, sha))
    // Credits such an upload had reserved go back to its account.
    await refundAbandonedReservations(ctx)
  } catch (error) {
    await db.close()
    unlock()
    throw error
  }

  try {
    await adoptMailKey(ctx)
  } catch (error) {
    await db.close()
    unlock()
    throw error
  }
  const mail = new MailDelivery(
    ctx,
    options.smtp,
    options.from ?? 'Vault Service <vault-service@localhost>',
    {
      insecurePlaintext: options.smtpInsecurePlaintext === true,
    },
  )
  if (mail.security === 'insecure-plaintext') {
    console.error(`[vault-service] sending e-mail ${smtpSecurityNote(mail.security)}`)
  }
  ctx.outboxChanged = () => {
    void mail.deliverPending()
  }
  const uploads = new Set<Promise<unknown>>()
  const app = buildHttpServer(ctx, {
    ...(options.rateLimits !== undefined ? { rateLimits: options.rateLimits } : {}),
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
    ...(options.tls ? { https: options.tls } : {}),
    ...(options.bodyLimit !== undefined ? { bodyLimit: options.bodyLimit } : {}),
    mail,
    trackUpload: (settled) => {
      uploads.add(settled)
      void settled.finally(() => uploads.delete(settled))
    },
  })
  const host = options.host ?? '127.0.0.1'
  try {
    await app.listen({ port: options.port ?? 0, host })
  } catch (error) {
    mail.close()
    await db.close()
    unlock()
    throw error
  }
  const { port } = app.server.address() as AddressInfo
  const url = `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`
  // Links in e-mails must be reachable: a wildcard listen address is not an address anyone can open.
  const wildcard = host === '0.0.0.0' || host === '::'
  if (wildcard && !options.publicUrl) {
    console.error(
      `[vault-service] listening on every interface; e-mailed links will use ${options.tls ? 'https' : 'http'}://127.0.0.1:${port} unless you pass --public-url`,
    )
  }
  const publicUrl = (
    options.publicUrl ?? (wildcard ? `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}` : url)
  ).replace(/\/+$/, '')
  const publicHost = URL.canParse(publicUrl) ? new URL(publicUrl).hostname : ''
  if (allowedHosts && !isHostAllowed(allowedHosts, publicHost)) {
    console.error(
      `[vault-service] the links in e-mails use ${publicUrl}, but --allowed-hosts does not list "${publicHost}": guardians and heirs would be refused; add it`,
    )
  }
  await writeSetting(db, PUBLIC_URL_SETTING, publicUrl)
  ctx.publicUrl = () => publicUrl

  const pass = (at?: Date) => runSchedulerPass(at ? { ...ctx, clock: () => at } : ctx)
  // One pass at a time in this instance; other instances may run theirs at the same moment (each job is
  // taken by one pass only: release.ts).
  let running: Promise<void> | null = null
  const runScheduled = () => {
    running ??= (async () => {
      try {
        await pass()
      } catch (error) {
        console.error('[vault-service] scheduler pass failed; it runs again at the next tick:', error)
      }
      void mail.deliverPending()
      void confirmStorage()
    })().finally(() => {
      running = null
    })
    return running
  }
  // Asking the storage network (and re-sending what it dropped) may take minutes: beside the release
  // passes and the start, never in their way; one at a time.
  let confirming: Promise<void> | null = null
  const confirmStorage = () => {
    confirming ??= confirmStoredBlobs(ctx, ctx.clock())
      .then(
        () => undefined,
        (error) =>
          console.error(
            '[vault-service] storage confirmation failed; it runs again at the next tick:',
            error,
          ),
      )
      .finally(() => {
        confirming = null
      })
    return confirming
  }
  // Before answering anyone: what fell due while the service was down (a missed deadline, an ended
  // contestation period) is done at start.
  await runScheduled()
  const timer = setInterval(runScheduled, options.tickIntervalMs ?? 60_000)
  timer.unref()

  let closing: Promise<void> | null = null
  return {
    url,
    admin: adminOperations(ctx),
    async tick(now?: Date) {
      await running
      const report = await pass(now)
      await mail.deliverPending()
      await confirming
      await confirmStoredBlobs(ctx, now ?? ctx.clock())
      return report
    },
    close() {
      closing ??= (async () => {
        clearInterval(timer)
        await running
        // A confirmation talking to a slow network must not hold shutdown; it is redone at the next start.
        await Promise.race([confirming, new Promise((resolve) => setTimeout(resolve, 2_000).unref())])
        // In-flight requests may finish during the grace period; then open connections are cut, which aborts any
        // upload still streaming (it cleans up after itself and commits nothing).
        const deadline = Date.now() + (options.shutdownGraceMs ?? 5_000)
        const cutWhenQuiet = setInterval(() => {
          // Keep-alive sockets left by finished requests would hold close() open: cut them once nothing is in flight.
          if (app.activeRequests() === 0 || Date.now() > deadline) app.server.closeAllConnections()
        }, 25)
        await app.close()
        clearInterval(cutWhenQuiet)
        await Promise.allSettled([...uploads])
        // A hanging SMTP server must not hold shutdown; unsent mail stays in the outbox for the next start.
        await Promise.race([mail.idle(), new Promise((resolve) => setTimeout(resolve, 2_000).unref())])
        mail.close()
        await db.close()
        unlock()
      })()
      return closing
    },
  }
}
