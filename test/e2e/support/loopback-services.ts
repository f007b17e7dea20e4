// Peers for end-to-end journeys: an SMTP server on loopback that keeps what it receives, and a Vault
// Service started as its own process (as a self-hoster would), delivering mail to that server.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { SMTPServer } from 'smtp-server'

export interface ReceivedMail {
  to: string[]
  subject: string
  /** Headers and body, quoted-printable decoded. */
  text: string
}

export interface Mailbox {
  port: number
  received: ReceivedMail[]
  /** The first message to `to` whose subject matches, waiting for it to arrive. */
  waitFor(to: string, subject?: RegExp, timeoutMs?: number): Promise<ReceivedMail>
  close(): Promise<void>
}

function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)))
}

export async function startMailbox(): Promise<Mailbox> {
  const received: ReceivedMail[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      let raw = ''
      stream.setEncoding('utf8')
      stream.on('data', (chunk: string) => {
        raw += chunk
      })
      stream.on('end', () => {
        const text = decodeQuotedPrintable(raw)
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: /^Subject: (.*)$/im.exec(text)?.[1]?.trim() ?? '',
          text,
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.server.address() as AddressInfo).port,
    received,
    async waitFor(to, subject, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = received.find((m) => m.to.includes(to) && (!subject || subject.test(m.subject)))
        if (found) return found
        if (Date.now() > deadline) {
          throw new Error(
            `no mail to ${to}${subject ? ` matching ${subject}` : ''}; got: ${received.map((m) => `${m.to} "${m.subject}"`).join('; ')}`,
          )
        }
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

export interface SelfHostedService {
  url: string
  dataDir: string
  admin(...args: string[]): Promise<unknown>
  stop(): Promise<void>
}

/** `service serve` as its own process, with SMTP and a public address of its own. */
export async function startSelfHostedService(options: {
  smtpPort: number
  publicUrl: string
}): Promise<SelfHostedService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'vault-e2e-service-'))
  const child: ChildProcess = spawn(
    process.execPath,
    [
      'out/cli/service.js',
      'serve',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--smtp',
      `smtp://127.0.0.1:${options.smtpPort}`,
      '--from',
      'vault@vault.example.org',
      '--public-url',
      options.publicUrl,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const url = await new Promise<string>((resolve, reject) => {
    let output = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /listening on (http:\/\/\S+)/.exec(output)
      if (match?.[1]) resolve(match[1])
    })
    child.once('exit', (code) => reject(new Error(`service exited early (${code}): ${output}`)))
  })
  const run = promisify(execFile)
  return {
    url,
    dataDir,
    admin: async (...args) => {
      const { stdout } = await run(process.execPath, [
        'out/cli/service.js',
        'admin',
        ...args,
        '--data-dir',
        dataDir,
      ])
      return JSON.parse(stdout)
    },
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}
