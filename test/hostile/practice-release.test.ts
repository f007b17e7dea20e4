// An heir's practice release (recoverPracticeFile: the Recovery screen's and the command-line tool's
// practice) against a Vault Service that lies about the practice. Every case: nothing is written
// outside the output folder and nothing there changes; the practice kits and the practice key are
// sent nowhere (only the proof over the challenge goes to the service); the access code goes to the
// service's address only, never along a redirect; and the heir is told what was wrong, never a pass
// the kits did not earn.
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { makePracticeMaterial } from '../../src/main/core/vaults/practice-material'
import { type PracticeRecoveryReport, recoverPracticeFile } from '../../src/recovery/practice-recovery'
import type { RehearsalTicket } from '../../src/shared/api'
import { AppError } from '../../src/shared/app-error'
import { rehearsalProof } from '../../src/vault-format/rehearsal-proof'
import { fileBlob, json, newVault, startFakeService } from './fake-vault-service'
import {
  contained,
  expectNeverSent,
  makeWorld,
  type RecordingListener,
  startElsewhere,
  type World,
} from './hostile-world'
import { endless, hugeJson, redirect } from './lies'

const cleanup: (World | RecordingListener)[] = []
afterEach(async () => {
  for (const item of cleanup.splice(0)) await ('remove' in item ? item.remove() : item.stop())
})

type Vault = ReturnType<typeof newVault>

interface Practice {
  vault: Vault
  kits: string[]
  practiceKey: Uint8Array
  ticket: RehearsalTicket
}

/** A practice as the owner's app makes it: a practice key split for three guardians, the letter sealed under it. */
async function newPractice(): Promise<Practice> {
  const vault = newVault()
  const { request, practiceKey } = await makePracticeMaterial({
    vaultId: vault.vaultId,
    vaultLabel: 'Family papers',
    preset: 'standard',
    guardians: [
      { id: 'g1', status: 'accepted' },
      { id: 'g2', status: 'accepted' },
      { id: 'g3', status: 'accepted' },
    ],
    heirId: 'h1',
    sample: { kind: 'letter' },
    now: new Date(),
  })
  return {
    vault,
    kits: request.practiceKits.map((k) => k.words),
    practiceKey,
    ticket: {
      rehearsalId: `rh_${randomBytes(8).toString('hex')}`,
      vaultId: vault.vaultId,
      challenge: request.challenge,
      expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      sample: {
        filename: request.sample.filename,
        sizeBytes: Buffer.from(request.sample.content, 'base64').length,
        content: request.sample.content,
      },
    },
  }
}

type Lie = (
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  elsewhere: RecordingListener,
) => boolean | Promise<boolean>

/**
 * Runs a practice recovery with two of the practice kits against a service that serves `ticket` (or
 * lies as `lie` says), and checks what every case must hold. The outcome is the report, or the error.
 */
async function practiceAgainst(
  practice: Practice,
  options: { ticket?: unknown; lie?: Lie } = {},
): Promise<{
  outcome: PracticeRecoveryReport | Error
  appeared: string[]
  reports: string[]
  service: RecordingListener
}> {
  const { vault, kits, practiceKey } = practice
  const world = await makeWorld()
  const elsewhere = await startElsewhere()
  cleanup.push(world, elsewhere)
  const reports: string[] = []
  const service = await startFakeService({
    key: vault.heirCode,
    vaultId: vault.vaultId,
    lie: async (request, response, url) => {
      if (options.lie && (await options.lie(request, response, url, elsewhere))) return true
      if (request.headers['x-api-key'] !== vault.heirCode) return false
      if (url.pathname === '/api/rehearsal' && request.method === 'GET') {
        return json(response, 200, { data: options.ticket ?? practice.ticket })
      }
      if (url.pathname === '/api/rehearsal/report' && request.method === 'POST') {
        const pieces: Buffer[] = []
        for await (const piece of request) pieces.push(piece as Buffer)
        reports.push(Buffer.concat(pieces).toString())
        return json(response, 200, { data: { passed: true } })
      }
      return false
    },
  })
  cleanup.push(service)
  const { result: outcome, appeared } = await contained(world, () =>
    recoverPracticeFile({
      serviceUrl: service.origin,
      accessToken: vault.heirCode,
      vaultId: vault.vaultId,
      kits: kits.slice(0, 2),
      outDir: world.outDir,
      timeoutMs: 1000,
    }).catch((error: unknown) => {
      if (error instanceof Error) return error
      throw error
    }),
  )
  // The access code went to the service only; the kits and the practice key went nowhere at all.
  expect(elsewhere.requests).toEqual([])
  expectNeverSent(vault.heirCode, elsewhere)
  for (const request of service.requests) expect(request.headers.host).toBe(new URL(service.origin).host)
  const secrets = [
    ...kits.map((words) => words.split(' ').slice(0, 6).join(' ')),
    Buffer.from(practiceKey).toString('hex'),
    Buffer.from(practiceKey).toString('base64'),
    Buffer.from(practiceKey).toString('base64url'),
  ]
  for (const secret of secrets) {
    expectNeverSent(secret, service, elsewhere)
    for (const body of reports) expect(body).not.toContain(secret)
  }
  if (process.env.HOSTILE_DEBUG) {
    console.log(outcome instanceof Error ? `${outcome.name}: ${said(outcome)}` : outcome)
  }
  return { outcome, appeared, reports, service }
}

/** What the heir is told by an error: its sentence for people, else its message. */
const said = (outcome: unknown): string =>
  outcome instanceof Error ? ((outcome as Partial<AppError>).userMessage ?? outcome.message) : ''

const recovered = (appeared: string[]) => appeared.filter((p) => !p.startsWith('.vault-downloads')).sort()

describe('a practice release against a lying service', () => {
  it('honest service (the fakes work): the letter is written, the proof alone is reported, and it passes', async () => {
    const practice = await newPractice()
    const run = await practiceAgainst(practice)
    const report = run.outcome as PracticeRecoveryReport
    expect(report.passed).toBe(true)
    expect(report.file?.status).toBe('recovered')
    expect(recovered(run.appeared)).toEqual([practice.ticket.sample.filename])
    expect(run.reports).toEqual([
      JSON.stringify({ proof: rehearsalProof(practice.practiceKey, practice.ticket.challenge) }),
    ])
  })

  it("the ticket's unsealed name is a traversal: the file is written under the name sealed inside, in the output folder", async () => {
    const practice = await newPractice()
    const run = await practiceAgainst(practice, {
      ticket: {
        ...practice.ticket,
        sample: { ...practice.ticket.sample, filename: '../../../../planted.txt' },
      },
    })
    const report = run.outcome as PracticeRecoveryReport
    expect(recovered(run.appeared)).toEqual([report.file?.name])
    expect(report.file?.name).not.toMatch(/planted|\.\./)
  })

  it('a ticket of another vault: refused before anything is written or reported, naming both vaults', async () => {
    const practice = await newPractice()
    const other = newVault().vaultId
    const run = await practiceAgainst(practice, { ticket: { ...practice.ticket, vaultId: other } })
    expect(run.outcome).toBeInstanceOf(AppError)
    expect((run.outcome as AppError).userMessage).toContain(other)
    expect((run.outcome as AppError).userMessage).toContain(practice.vault.vaultId)
    expect(run.appeared).toEqual([])
    expect(run.reports).toEqual([])
  })

  it('a swapped sample (a real file of the vault, under the vault key): nothing opens, nothing is kept, no pass is reported', async () => {
    const practice = await newPractice()
    const real = await fileBlob(practice.vault, 'letters/will.txt', 'the real will')
    const run = await practiceAgainst(practice, {
      ticket: {
        ...practice.ticket,
        sample: { filename: 'will.txt', sizeBytes: real.length, content: real.toString('base64') },
      },
    })
    const report = run.outcome as PracticeRecoveryReport
    expect(report.passed).toBe(false)
    expect(report.message).toMatch(/did not open the practice file/)
    expect(recovered(run.appeared)).toEqual([])
    expect(run.reports).toEqual([])
  })

  it('a sample cut short: no file is kept and no pass is reported', async () => {
    const practice = await newPractice()
    const whole = Buffer.from(practice.ticket.sample.content, 'base64')
    const cut = whole.subarray(0, whole.length - 40)
    const run = await practiceAgainst(practice, {
      ticket: {
        ...practice.ticket,
        sample: { ...practice.ticket.sample, sizeBytes: cut.length, content: cut.toString('base64') },
      },
    })
    const report = run.outcome as PracticeRecoveryReport
    expect(report.passed).toBe(false)
    expect(report.message).not.toBe('')
    expect(recovered(run.appeared)).toEqual([])
    expect(run.reports).toEqual([])
  })

  it('the report is redirected to another host: the proof and the code stay, and the heir is told it was not reported', async () => {
    const practice = await newPractice()
    const run = await practiceAgainst(practice, {
      lie: (_request, response, url, elsewhere) =>
        url.pathname === '/api/rehearsal/report' &&
        redirect(response, `${elsewhere.origin}/api/rehearsal/report`, 307),
    })
    const report = run.outcome as PracticeRecoveryReport
    expect(report.passed).toBe(false)
    expect(report.message).toMatch(/could not be told/)
    // The letter itself was recovered: the kits worked; only the report did not reach the owner.
    expect(report.file?.status).toBe('recovered')
  })

  it('an endless ticket: the download is cut at the answer limit and the heir gets an error, not a hang', async () => {
    const practice = await newPractice()
    const run = await practiceAgainst(practice, {
      lie: (request, response, url) =>
        url.pathname === '/api/rehearsal' && request.method === 'GET' && hugeJson(response, 40 * 1024 * 1024),
    })
    expect(run.outcome).toBeInstanceOf(Error)
    expect(said(run.outcome)).toMatch(/larger than \d+ bytes\. Nothing was used from it/)
    expect(run.appeared).toEqual([])
    expect(run.reports).toEqual([])
  }, 30_000)

  it('a ticket that never finishes: the heir gets an error naming the service, nothing is written', async () => {
    const practice = await newPractice()
    const run = await practiceAgainst(practice, {
      lie: (request, response, url) =>
        url.pathname === '/api/rehearsal' &&
        request.method === 'GET' &&
        endless(response, {
          head: Buffer.from('{"data":'),
          piece: () => Buffer.from(' '),
          everyMs: 50,
          contentType: 'application/json',
        }),
    })
    expect(run.outcome).toBeInstanceOf(Error)
    expect(said(run.outcome)).toContain(run.service.origin)
    expect(run.appeared).toEqual([])
    expect(run.reports).toEqual([])
  }, 30_000)
})
