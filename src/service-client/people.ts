// Guardians and heirs of a vault. Listing them is a local service extension.
import type { Guardian, GuardianRemoved, Heir, HeirRemoved, PersonRequest } from '../shared/api'
import type { Transport } from './transport'
import { vaultPath } from './vaults'

export function addGuardian(t: Transport, vaultId: string, person: PersonRequest): Promise<Guardian> {
  return t.data('add guardian', 'POST', vaultPath(vaultId, 'guardian'), { json: person, idempotent: false })
}

export function removeGuardian(t: Transport, vaultId: string, guardianId: string): Promise<GuardianRemoved> {
  return t.data('remove guardian', 'DELETE', vaultPath(vaultId, 'guardian', guardianId), {
    idempotent: false,
  })
}

export function listGuardians(t: Transport, vaultId: string): Promise<Guardian[]> {
  return t.data('list guardians', 'GET', vaultPath(vaultId, 'guardian'), { idempotent: true })
}

export function addHeir(t: Transport, vaultId: string, person: PersonRequest): Promise<Heir> {
  return t.data('add heir', 'POST', vaultPath(vaultId, 'heir'), { json: person, idempotent: false })
}

export function removeHeir(t: Transport, vaultId: string, heirId: string): Promise<HeirRemoved> {
  return t.data('remove heir', 'DELETE', vaultPath(vaultId, 'heir', heirId), {
    idempotent: false,
  })
}

export function listHeirs(t: Transport, vaultId: string): Promise<Heir[]> {
  return t.data('list heirs', 'GET', vaultPath(vaultId, 'heir'), { idempotent: true })
}
