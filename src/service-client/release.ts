// The release: its configuration, check-ins, cancelling, a manual start, and practice runs
// (rehearsals, local service extensions) seen from the owner's side.
import type {
  CancelResult,
  CheckInResult,
  Rehearsal,
  RehearsalRequest,
  ReleaseConfig,
  ReleaseConfigRequest,
} from '../shared/api'
import type { Transport } from './transport'
import { type VaultDetails, vaultPath } from './vaults'

export function configureRelease(
  t: Transport,
  vaultId: string,
  request: ReleaseConfigRequest,
): Promise<ReleaseConfig> {
  return t.data('configure release', 'POST', vaultPath(vaultId, 'release', 'config'), {
    json: request,
    idempotent: false,
  })
}

export function checkIn(t: Transport, vaultId: string, note?: string): Promise<CheckInResult> {
  return t.data('check in', 'POST', vaultPath(vaultId, 'release', 'checkin'), {
    json: note ? { note } : {},
    idempotent: false,
  })
}

export function cancelRelease(t: Transport, vaultId: string): Promise<CancelResult> {
  return t.data('cancel release', 'POST', vaultPath(vaultId, 'release', 'cancel'), { idempotent: false })
}

/** Manual release (local service extension); answers with the vault, now releasing. */
export function startRelease(t: Transport, vaultId: string): Promise<VaultDetails> {
  return t.data('start release', 'POST', vaultPath(vaultId, 'release', 'start'), { idempotent: false })
}

export function startRehearsal(t: Transport, vaultId: string, request: RehearsalRequest): Promise<Rehearsal> {
  return t.data('start a rehearsal', 'POST', vaultPath(vaultId, 'rehearsal'), {
    json: request,
    idempotent: false,
  })
}

export function getRehearsal(t: Transport, vaultId: string): Promise<Rehearsal | null> {
  return t.data('read the rehearsal', 'GET', vaultPath(vaultId, 'rehearsal'), { idempotent: true })
}

export function endRehearsal(t: Transport, vaultId: string): Promise<Rehearsal> {
  return t.data('end the rehearsal', 'DELETE', vaultPath(vaultId, 'rehearsal'), { idempotent: false })
}
