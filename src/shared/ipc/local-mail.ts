// "Mail from the local trial": what the Vault Service this app runs on this computer would have
// e-mailed. Read in-process from that service's outbox (never over HTTP), so the owner can play each
// guardian and heir in a trial run alone. A service elsewhere never offers it.

/** Whether a message left the computer, and if not, why. */
export type LocalMailDelivery =
  | { state: 'sent'; at: string }
  /** The local service runs without an SMTP server: the message stays here. */
  | { state: 'not-sent'; reason: 'no-mail-server' }
  /** An SMTP server was tried and refused or failed (the service's last answer). */
  | { state: 'not-sent'; reason: 'failed'; attempts: number; lastError: string }

export interface LocalMailMessage {
  /** The outbox row's id: newer messages have higher ids. */
  id: number
  /** What the service calls it: guardian_invitation, heir_access, kit_check_reminder, ... */
  kind: string
  vaultId: string | null
  to: string
  subject: string
  /** Plain text, with the recipient's personal links in it. */
  body: string
  createdAt: string
  delivery: LocalMailDelivery
}

export interface LocalMailbox {
  /** The local service's own address: links to it are the ones the owner can follow as the recipient. */
  serviceUrl: string
  /** Newest first. */
  messages: LocalMailMessage[]
}
