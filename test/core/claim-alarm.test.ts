// The owner's alarm on a guardian claim short of the threshold (issue 29, point 3): the watcher reads the
// service's `claims`, alarms once per new claim and session (again at the next app start), not at the
// threshold (the release alarm speaks then), and not on claims a wrong or hostile service makes up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { claimNotice } from '../../src/main/core/vaults/vault-notices'
import { type ClaimAlarm, type ReleaseAlarm, VaultWatcher } from '../../src/main/core/vaults/vault-watcher'
import { VaultApiClient, type VaultDetails } from '../../src/service-client'
import { type ServiceFixture, startServiceFixture } from './service-fixture'

let svc: ServiceFixture

beforeAll(async () => {
  svc = await startServiceFixture()
})
afterAll(async () => {
  await svc?.close()
})

/** The guardian's personal link of one action, from their invitation in the service's outbox. */
async function linkOf(vaultId: string, email: string, action: string): Promise<string> {
  const { messages } = await svc.service.admin.outbox({ vault: vaultId })
  const invitation = messages.find((m) => m.kind === 'guardian_invitation' && m.to === email)!
  return new RegExp(`(http://\\S+/guardian/\\S+/${action})`).exec(invitation.body)![1]!
}

describe('claim alarm', () => {
  it('a claim short of the threshold alarms the owner once, again at the next start, and not at the threshold', async () => {
    const client = new VaultApiClient({ baseUrl: svc.url, apiKey: svc.humanKey })
    const vault = await client.createVault()
    await client.configureRelease(vault.id, { trigger: 'guardian_claim' })
    for (const [name, email] of [
      ['Gina', 'gina@example.com'],
      ['Gus', 'gus@example.com'],
    ] as const) {
      await client.addGuardian(vault.id, { name, email })
      await fetch(await linkOf(vault.id, email, 'accept'), { method: 'POST' })
    }

    const watcher = await VaultWatcher.open({ client: async () => client, now: svc.now })
    const claims: ClaimAlarm[] = []
    const releases: ReleaseAlarm[] = []
    watcher.on('claim-alarm', (a) => claims.push(a))
    watcher.on('alarm', (a) => releases.push(a))
    await watcher.pollNow()
    expect(claims).toEqual([])

    await fetch(await linkOf(vault.id, 'gina@example.com', 'claim'), { method: 'POST' })
    await watcher.pollNow()
    expect(claims).toEqual([
      {
        vaultId: vault.id,
        guardian: 'Gina',
        count: 1,
        needed: 2,
        claimedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ])
    const notice = claimNotice('My vault', claims[0]!)
    expect(notice).toMatchObject({ kind: 'claimed', title: 'Gina claimed My vault', vaultId: vault.id })
    expect(notice.body).toContain('1 of 2 claims needed')
    expect(notice.body).toContain(
      'If you are well, talk to your guardians now. One more claim starts a release',
    )

    // Polled again: the same claim does not alarm twice in a session.
    await watcher.pollNow()
    expect(claims).toHaveLength(1)

    // The app starts again: the standing claim alarms again.
    const restarted = await VaultWatcher.open({ client: async () => client, now: svc.now })
    const again: ClaimAlarm[] = []
    restarted.on('claim-alarm', (a) => again.push(a))
    await restarted.pollNow()
    expect(again.map((a) => a.guardian)).toEqual(['Gina'])

    // The second claim starts the release: the release alarm, not a claim alarm.
    svc.advance(60_000)
    await fetch(await linkOf(vault.id, 'gus@example.com', 'claim'), { method: 'POST' })
    await watcher.pollNow()
    expect(claims).toHaveLength(1)
    expect(releases.map((a) => a.vaultId)).toEqual([vault.id])
  })

  it('claims a service makes up (wrong types, zero, a count at or past the threshold) raise no alarm', async () => {
    const base: VaultDetails = {
      id: 'vlt_x',
      state: 'active',
      createdAt: '2030-01-01T00:00:00.000Z',
      creditsBalance: 10,
      assetCount: 0,
      guardianCount: 2,
      heirCount: 0,
      releaseTrigger: 'guardian_claim',
      sssPreset: 'standard',
    }
    const answers: unknown[] = [
      { count: '1', needed: 2, lastAt: '2030-01-01T00:00:00.000Z', lastBy: 'X' },
      { count: 0, needed: 2, lastAt: '2030-01-01T00:00:00.000Z', lastBy: 'X' },
      { count: 1, needed: 2, lastAt: 'yesterday', lastBy: 'X' },
      { count: 1, needed: 2, lastAt: '2030-01-01T00:00:00.000Z', lastBy: 7 },
      { count: 2, needed: 2, lastAt: '2030-01-01T00:00:00.000Z', lastBy: 'X' },
      'claims',
    ]
    let i = 0
    const fake = {
      listVaults: async () => [{ ...base, claims: answers[i] } as VaultDetails],
      getVault: async () => ({ ...base, claims: answers[i] }) as VaultDetails,
    } as unknown as VaultApiClient
    const watcher = await VaultWatcher.open({ client: async () => fake })
    const seen: ClaimAlarm[] = []
    watcher.on('claim-alarm', (a) => seen.push(a))
    for (i = 0; i < answers.length; i++) await watcher.pollNow()
    expect(seen).toEqual([])
    // The same shape, well formed, does alarm (the fake itself works).
    answers.push({ count: 1, needed: 2, lastAt: '2030-01-01T00:00:00.000Z', lastBy: 'X' })
    await watcher.pollNow()
    expect(seen.map((a) => a.guardian)).toEqual(['X'])
  })
})
