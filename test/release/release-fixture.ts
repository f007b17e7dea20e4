// What the release tests share: a real SMTP server on loopback that keeps every message, a Vault
// Service on a movable clock that delivers to it, an owner's vault session connected to that service,
// seeded file generation (streamed, never whole in memory), hashing, and a TCP relay that can cut
// a download part-way (the service "going away" mid-file).
import { createCipheriv, createHash } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { SMTPServer } from 'smtp-server'
import { VaultSession } from '../../src/main/core/vault-session'
import { type RunningService, startService } from '../../src/service'
import { decodeOwnerKitWords } from '../../src/vault-format'
import { testSecretBox } from '../core/secret-box-fixture'

export const DAY_MS = 86_400_000

export interface Mail {
  to: string[]
  subject: string
  /** Headers and body, quoted-printable decoded. */
  text: string
}

export class MailCatcher {
  readonly received: Mail[] = []
  #server: SMTPServer
  port = 0

  private constructor() {
    this.#server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, session, callback) => {
        let raw = ''
        stream.setEncoding('utf8')
        stream.on('data', (chunk: string) => {
          raw += chunk
        })
        stream.on('end', () => {
          const text = raw
            .replace(/=\r?\n/g, '')
            .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
          // Long subjects are folded onto continuation lines.
          const subject =
            /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(text)?.[1]?.replace(/\r?\n[ \t]/g, ' ') ?? ''
          this.received.push({ to: session.envelope.rcptTo.map((r) => r.address), subject, text })
          callback()
        })
      },
    })
  }

  static async start(): Promise<MailCatcher> {
    const catcher = new MailCatcher()
    await new Promise<void>((resolve) => catcher.#server.listen(0, '127.0.0.1', resolve))
    catcher.port = (catcher.#server.server.address() as AddressInfo).port
    return catcher
  }

  to(address: string): Mail[] {
    return this.received.filter((m) => m.to.includes(address))
  }

  async waitFor(address: string, predicate: (m: Mail) => boolean = () => true, timeoutMs = 10_000) {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const found = this.to(address).find(predicate)
      if (found) return found
      if (Date.now() > deadline) throw new Error(`no matching mail to ${address} arrived`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()))
  }
}

/** The guardian link of one kind (accept, decline, claim) in an invitation. */
export function guardianLink(mail: Mail, action: 'accept' | 'decline' | 'claim'): string {
  const link = new RegExp(`https?://\\S+/guardian/gt_[A-Za-z0-9_-]+/${action}`).exec(mail.text)?.[0]
  if (!link) throw new Error(`no ${action} link in the mail to ${mail.to.join(', ')}`)
  return link
}

/** Follows a guardian link as the guardian would: open the page, then press its button (POST). */
export async function followGuardianLink(link: string): Promise<{ status: number; page: string }> {
  const shown = await fetch(link)
  if (shown.status !== 200) throw new Error(`GET ${link}: ${shown.status}`)
  const done = await fetch(link, { method: 'POST' })
  return { status: done.status, page: await done.text() }
}

export function heirToken(mail: Mail): string {
  const token = /(hk_[A-Za-z0-9_-]{20,})/.exec(mail.text)?.[1]
  if (!token) throw new Error('no heir access token in the mail')
  return token
}

export interface ReleaseWorld {
  mail: MailCatcher
  service: RunningService
  serviceDir: string
  accountId: string
  ownerKey: string
  ownerEmail: string
  now(): number
  advance(ms: number): void
  /** A fresh owner vault session (its own data folder) connected to the service. */
  ownerCore(options?: { start?: boolean }): Promise<VaultSession>
  tempDir(prefix: string): Promise<string>
  close(): Promise<void>
}

export async function startReleaseWorld(ownerEmail = 'owner@example.com'): Promise<ReleaseWorld> {
  const mail = await MailCatcher.start()
  const serviceDir = await mkdtemp(join(tmpdir(), 'vault-release-svc-'))
  let offset = 0
  const now = () => Date.now() + offset
  const service = await startService({
    dataDir: serviceDir,
    port: 0,
    clock: () => new Date(now()),
    smtp: `smtp://127.0.0.1:${mail.port}`,
    from: 'Vault Service <vault@example.org>',
    rateLimits: false,
    tickIntervalMs: 3_600_000,
  })
  const { accountId, apiKey } = await service.admin.createAccount({ email: ownerEmail })
  await service.admin.addCredits({ account: accountId, credits: 5_000 })
  const dirs: string[] = [serviceDir]
  const cores: VaultSession[] = []
  const tempDir = async (prefix: string) => {
    const dir = await mkdtemp(join(tmpdir(), prefix))
    dirs.push(dir)
    return dir
  }
  return {
    mail,
    service,
    serviceDir,
    accountId,
    ownerKey: apiKey,
    ownerEmail,
    now,
    advance: (ms) => {
      offset += ms
    },
    tempDir,
    async ownerCore(options = {}) {
      const core = await VaultSession.open({
        userDataDir: await tempDir('vault-release-owner-'),
        secretBox: testSecretBox(),
        useKeychain: false,
        now,
      })
      cores.push(core)
      await core.connections.add({ serviceUrl: service.url, apiKey, label: 'Test service' })
      if (options.start) core.start()
      return core
    },
    async close() {
      for (const core of cores) await core.close().catch(() => {})
      await service.close()
      await mail.close()
      for (const dir of dirs) await rm(dir, { recursive: true, force: true })
    },
  }
}

/** The vault key as the owner's device holds it (read through the owner kit, as a person could). */
export async function ownerVaultKey(core: VaultSession, vaultId: string): Promise<Uint8Array> {
  return decodeOwnerKitWords((await core.vaultKeys.exportOwnerKit(vaultId)).words).vaultKey
}

/** Writes `bytes` of reproducible pseudo-random content (AES-CTR keystream of a seed), streamed. */
export async function writeSeededFile(path: string, bytes: number, seed: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  const key = createHash('sha256').update(seed).digest().subarray(0, 16)
  const cipher = createCipheriv('aes-128-ctr', key, Buffer.alloc(16))
  const zeros = Buffer.alloc(1 << 20)
  async function* blocks() {
    for (let left = bytes; left > 0; left -= zeros.length) {
      yield cipher.update(left >= zeros.length ? zeros : zeros.subarray(0, left))
    }
  }
  await pipeline(Readable.from(blocks()), createWriteStream(path))
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(createReadStream(path, { highWaterMark: 1 << 20 }), hash)
  return hash.digest('hex')
}

/** Where the service keeps an asset's stored bytes (content-addressed by SHA-256). */
export function blobPathOf(serviceDir: string, storageTxId: string): string {
  const hex = Buffer.from(storageTxId, 'base64url').toString('hex')
  return join(serviceDir, 'blobs', hex.slice(0, 2), hex)
}

/**
 * A TCP relay in front of the service. `cutAfterBytes` closes every connection once that many bytes
 * went back to the client (the service vanishing mid-download); `requests` records request heads.
 */
export class Relay {
  readonly requests: string[] = []
  #server: Server
  #sockets = new Set<Socket>()
  url = ''

  private constructor(target: URL, cutAfterBytes: number | undefined) {
    this.#server = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname)
      this.#sockets.add(client).add(upstream)
      let sentBack = 0
      let head = ''
      client.on('data', (chunk: Buffer) => {
        if (head.length < 4096) {
          head += chunk.toString('latin1')
          if (head.includes('\r\n\r\n')) {
            this.requests.push(head.slice(0, head.indexOf('\r\n\r\n')))
            head = ''
          }
        }
        upstream.write(chunk)
      })
      upstream.on('data', (chunk: Buffer) => {
        sentBack += chunk.length
        if (cutAfterBytes !== undefined && sentBack > cutAfterBytes) {
          client.destroy()
          upstream.destroy()
          return
        }
        client.write(chunk)
      })
      const end = () => {
        client.destroy()
        upstream.destroy()
      }
      client.on('close', end).on('error', end)
      upstream.on('close', end).on('error', end)
    })
  }

  static async start(targetUrl: string, cutAfterBytes?: number): Promise<Relay> {
    const relay = new Relay(new URL(targetUrl), cutAfterBytes)
    await new Promise<void>((resolve) => relay.#server.listen(0, '127.0.0.1', resolve))
    relay.url = `http://127.0.0.1:${(relay.#server.address() as AddressInfo).port}`
    return relay
  }

  close(): Promise<void> {
    for (const s of this.#sockets) s.destroy()
    return new Promise((resolve) => this.#server.close(() => resolve()))
  }
}
