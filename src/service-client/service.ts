// The service itself (local service extensions): what it offers, and whether it can send e-mail.
import type { KeyRevoked, MailTestResult, ServiceInfo } from '../shared/api'
import type { Transport } from './transport'

export function getServiceInfo(t: Transport): Promise<ServiceInfo> {
  return t.data('read service info', 'GET', '/service', { idempotent: true })
}

/** Extension key-revoke: the key this client holds stops working on the service. */
export function revokeOwnKey(t: Transport): Promise<KeyRevoked> {
  return t.data('revoke this key', 'DELETE', '/key', { idempotent: false })
}

export function sendTestMail(t: Transport): Promise<MailTestResult> {
  return t.data('send a test e-mail', 'POST', '/service/mail-test', { idempotent: false })
}
