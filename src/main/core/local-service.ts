// "Start locally": the Vault Service that runs inside this process, as the core sees it. The shells
// provide it (main/local-service-host.ts starts src/service); the core reaches the service itself only
// over HTTP, through a connection to `url`, like any other service.
import { AppError } from '../../shared/app-error'
import type { LocalMailbox } from '../../shared/ipc/local-mail'

export interface LocalService {
  /** Where it answers now; null until started. */
  readonly currentUrl: string | null
  /** Whether a stored connection points at the service on this computer. */
  isLocal(serviceUrl: string): boolean
  /** Starts it (once); resolves when it answers. */
  start(): Promise<{ url: string }>
  /** Creates the owner's account (with its trial credits); the connection is stored with this URL. */
  createAccount(email: string): Promise<{ apiKey: string; serviceUrl: string }>
  /** A new owner key for the local account (one lost with a restart, when no keychain kept it). */
  issueKey(): Promise<string>
  /** A read-and-check-in (sk_agent_) key for the local account (the check-in on unlock). */
  issueAgentKey(): Promise<string>
  revokeKey(apiKey: string): Promise<void>
  /** Adds credits to the local account; resolves with the new balance. */
  addCredits(credits: number): Promise<number>
  /**
   * What it would have e-mailed (its outbox, newest first, bodies opened by the service's own code), read
   * in this process: the messages hold guardians' and heirs' personal links, so this never goes over HTTP.
   */
  localMail(): Promise<LocalMailbox>
  /** Stops it, after the app has stopped using it. */
  close(): Promise<void>
}

/** Opens the local service's state for a user-data folder (nothing starts until `start`). */
export type LocalServiceOpener = (userDataDir: string) => Promise<LocalService>

const notProvided = () =>
  new AppError({
    code: 'NO_LOCAL_SERVICE',
    userMessage:
      'This copy of Vault Desktop cannot run a Vault Service on this computer. Connect to a Vault Service instead (Settings → Connections).',
  })

/** For a shell that brings no service of its own: nothing is local, and starting one says why not. */
export const NO_LOCAL_SERVICE: LocalService = {
  currentUrl: null,
  isLocal: () => false,
  start: () => Promise.reject(notProvided()),
  createAccount: () => Promise.reject(notProvided()),
  issueKey: () => Promise.reject(notProvided()),
  issueAgentKey: () => Promise.reject(notProvided()),
  revokeKey: () => Promise.reject(notProvided()),
  addCredits: () => Promise.reject(notProvided()),
  localMail: () => Promise.reject(notProvided()),
  close: () => Promise.resolve(),
}

/**
 * A key goes to the address of the service on this computer only while this process's own service
 * answers there: if it did not start (its port taken while the app was closed), whatever listens at
 * that address is another program, maybe another user's, and would receive the owner's key.
 */
export function requireOwnServiceAt(localService: LocalService, serviceUrl: string): void {
  if (!localService.isLocal(serviceUrl) || localService.currentUrl === serviceUrl) return
  const port = new URL(serviceUrl).port
  throw new AppError({
    code: 'LOCAL_SERVICE_DOWN',
    userMessage: `The vault service on this computer is not running, so Vault Desktop sends nothing to its address (${serviceUrl}): another program may be using port ${port}. Close that program (or restart the computer), then open Vault Desktop again.`,
  })
}
