// "Mail from the local trial": the outbox of the Vault Service this app runs on this computer, read
// in-process through the LocalService interface. Only while that service is the active connection: a
// service elsewhere sends its own mail and never shows it to the app (nor should it: the messages hold
// guardians' and heirs' personal links).
import { AppError } from '../../../shared/app-error'
import type { VaultSession } from '../vault-session'
import type { HandlerTable } from './handler-table'

type LocalMailHandlers = Pick<HandlerTable, 'listLocalMail'>

export function createLocalMailHandlers(session: () => Promise<VaultSession>): LocalMailHandlers {
  return {
    listLocalMail: async () => {
      const s = await session()
      const active = s.connections.active()
      if (!active || !s.localService.isLocal(active.serviceUrl)) {
        throw new AppError({
          code: 'NOT_LOCAL',
          userMessage:
            'Mail from the local trial is shown only for the Vault Service on this computer. The service you are connected to sends its own e-mail to guardians and heirs; to try everything out here, choose "This computer" in Settings → Connections (or Start locally).',
        })
      }
      return s.localService.localMail()
    },
  }
}
