// Kit checks through the app's handlers against the real local service: adding guardians makes kits whose
// check codes the app registers (hashes only); a guardian confirms with the code printed on their kit and
// the link from their invitation; the owner's readiness then lists them as confirmed, the other as not yet.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { dispatch } from '../../src/main/core/ipc/handler-table'
import { createVaultApp, type VaultApp } from '../../src/main/core/vault-app'
import { type RunningService, startService } from '../../src/service'
import { checkKitByLink } from '../../src/service-client'
import { invokeChannels } from '../../src/shared/ipc/contract'
import type { VaultView } from '../../src/shared/ipc/vault-types'
import { encodeOwnerKitWords, generateVaultKey } from '../../src/vault-format'
import { kitCheckCodeHash } from '../../src/vault-format/kit-check'

let service: RunningService
let backend: VaultApp
let dirs: string[]

async function ok<T = unknown>(key: keyof typeof invokeChannels, args?: unknown): Promise<T> {
  const answer = await dispatch(backend.handlers, invokeChannels[key].name, args)
  if (!answer.ok) throw new Error(`${key}: ${JSON.stringify(answer.error)}`)
  return answer.value as T
}

beforeAll(async () => {
  dirs = [await mkdtemp(join(tmpdir(), 'vault-kc-svc-')), await mkdtemp(join(tmpdir(), 'vault-kc-app-'))]
  service = await startService({ dataDir: dirs[0]!, port: 0 })
  backend = createVaultApp({ userDataDir: dirs[1]!, mode: 'browser', version: '0', useKeychain: false })
})
afterAll(async () => {
  await backend?.close()
  await service?.close()
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

it('kits made in the app register their check codes; a guardian confirms with the printed code; readiness says who did', async () => {
  const account = await service.admin.createAccount({ email: 'kc@example.com' })
  const { vaultId } = await service.admin.createVault({ account: account.accountId, preset: 'standard' })
  await ok('connectService', { serviceUrl: service.url, apiKey: account.apiKey })
  await ok('importOwnerKit', {
    vaultId,
    words: encodeOwnerKitWords({ vaultKey: generateVaultKey(), vaultId }),
  })
  const people = [
    ['Ana', 'ana@example.com'],
    ['Bo', 'bo@example.com'],
  ] as const
  for (const [name, email] of people) await ok('addGuardian', { vaultId, person: { name, email } })

  // The second re-split is the current one; every guardian has a registered code in it.
  const guardians = await ok<{ items: { id: string; name: string; kitCheck?: { split: string } | null }[] }>(
    'listGuardians',
    { vaultId },
  )
  const kits = await ok<{ guardianId: string; splitId: string }[]>('listGuardianKits', { vaultId })
  expect(guardians.items.map((g) => g.kitCheck?.split)).toEqual([kits[0]!.splitId, kits[0]!.splitId])

  // Ana reads the code off her kit and types it with the link from her invitation.
  const ana = guardians.items.find((g) => g.name === 'Ana')!
  const kit = await ok<{ html: string }>('getGuardianKit', { vaultId, guardianId: ana.id })
  const code = /data-kit-check-code>([0-9A-Z-]+)</.exec(kit.html)?.[1]
  expect(code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]$/)
  // What the service holds for her is the hash of that code.
  const stored = await service.admin.outbox({ vault: vaultId })
  const invitation = stored.messages.find(
    (m) => m.to === 'ana@example.com' && m.kind === 'guardian_invitation',
  )!
  const link = /https?:\/\/\S+\/guardian\/gt_[A-Za-z0-9_-]{43}\/check/.exec(invitation.body)![0]
  expect(await checkKitByLink(link, code!.toLowerCase().replaceAll('-', ' '))).toMatchObject({
    outcome: 'confirmed',
  })
  expect(kitCheckCodeHash(code!, vaultId)).toMatch(/^[0-9a-f]{64}$/)

  // Bo uses the app's kit check: his words typed in (any case), the code shown, confirmed with his link.
  const bo = guardians.items.find((g) => g.name === 'Bo')!
  const boKit = await ok<{ html: string }>('getGuardianKit', { vaultId, guardianId: bo.id })
  const boWords = [...boKit.html.matchAll(/<span class="w">([a-z]+)<\/span>/g)].map((m) => m[1]).join('  ')
  const boCode = /data-kit-check-code>([0-9A-Z-]+)</.exec(boKit.html)![1]
  const boLink = /https?:\/\/\S+\/guardian\/gt_[A-Za-z0-9_-]{43}\/check/.exec(
    stored.messages.find((m) => m.to === 'bo@example.com' && m.kind === 'guardian_invitation')!.body,
  )![0]
  expect(await ok('checkKit', { text: boWords.toUpperCase() })).toEqual({
    code: boCode,
    shareIndex: expect.any(Number),
    shares: 3,
    vaultFingerprint: expect.stringMatching(/^[0-9A-F]{4}-/),
  })
  const bad = await dispatch(backend.handlers, invokeChannels.checkKit.name, {
    text: boWords,
    guardianLink: `${service.url}/recover`,
  })
  expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_GUARDIAN_LINK' } })
  // Ana's kit with Bo's link: named, not confirmed.
  const swapped = await ok<{ result: { outcome: string } }>('checkKit', {
    text: [...kit.html.matchAll(/<span class="w">([a-z]+)<\/span>/g)].map((m) => m[1]).join(' '),
    guardianLink: boLink,
  })
  expect(swapped.result.outcome).toBe('other-guardian')

  const readinessLines = async () => {
    const view = await ok<VaultView>('refreshVault', { vaultId })
    return view.readiness.items.find((i) => i.id === 'kits')?.lines ?? []
  }
  await expect
    .poll(readinessLines, { timeout: 10_000 })
    .toEqual([
      expect.stringMatching(/^Ana: kit confirmed \d{1,2} [A-Z][a-z]{2} \d{4}$/),
      'Bo: not confirmed yet',
    ])
})
