// Vaults: the spec's list and read, and the local service's create, rename and delete.
import type { SssPreset } from '../shared/api'
import { checkVault, checkVaultList, type VaultDetails } from './answer-checks'
import type { Transport } from './transport'

export type { VaultDetails } from './answer-checks'

/** Local service extension: POST /vault with an optional preset (default standard) and name. */
export interface CreateVaultRequest {
  preset?: SssPreset
  name?: string
}

/** `/vault/:id` and what lies under it; each segment encoded, so an id can never add a segment. */
export function vaultPath(vaultId: string, ...under: string[]): string {
  return ['', 'vault', vaultId, ...under].map(encodeURIComponent).join('/')
}

/** The first list also finds the API prefix, and is the answer of that search. */
export async function listVaults(t: Transport, signal?: AbortSignal): Promise<VaultDetails[]> {
  const list = t.prefix
    ? await t.data<unknown>('list vaults', 'GET', '/vault', { idempotent: true, signal })
    : await t.detectPrefix<unknown>(signal)
  return checkVaultList(t, list)
}

/** The vault asked for: an answer about another vault (or a malformed one) is refused. */
export async function getVault(t: Transport, vaultId: string, signal?: AbortSignal): Promise<VaultDetails> {
  const vault = await t.data<unknown>('get vault', 'GET', vaultPath(vaultId), { idempotent: true, signal })
  return checkVault(t, 'get vault', vault, vaultId)
}

export function createVault(t: Transport, request: CreateVaultRequest = {}): Promise<VaultDetails> {
  return t.data('create vault', 'POST', '/vault', { json: request, idempotent: false })
}

/** A null or empty name clears it. */
export function renameVault(t: Transport, vaultId: string, name: string | null): Promise<VaultDetails> {
  return t.data('rename vault', 'PATCH', vaultPath(vaultId), {
    json: { name },
    idempotent: true,
  })
}

/** Turns one-step check-in links in reminder e-mails on or off (extension 'check-in-links'). */
export function setCheckInLinks(t: Transport, vaultId: string, on: boolean): Promise<VaultDetails> {
  return t.data('set check-in links', 'PATCH', vaultPath(vaultId), {
    json: { checkInLinks: on },
    idempotent: true,
  })
}

export function deleteVault(t: Transport, vaultId: string): Promise<{ deleted: string }> {
  return t.data('delete vault', 'DELETE', vaultPath(vaultId), { idempotent: false })
}
