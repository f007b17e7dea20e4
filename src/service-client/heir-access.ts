// Calls made with an heir's practice access code instead of an owner's key (local service
// extensions). An heir's downloads go through assets.ts like the owner's.
import type { RehearsalTicket } from '../shared/api'
import type { Transport } from './transport'

/** The rehearsal a practice heir code belongs to (404 or 403 for any other key). */
export function getRehearsalTicket(t: Transport): Promise<RehearsalTicket> {
  return t.data('read the rehearsal', 'GET', '/rehearsal', { idempotent: true })
}

export function reportRehearsal(t: Transport, proof: string): Promise<{ passed: boolean }> {
  return t.data('report the rehearsal', 'POST', '/rehearsal/report', { json: { proof }, idempotent: true })
}
