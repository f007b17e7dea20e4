// "Send a test e-mail", from Settings and from the readiness checklist: the one way either asks the
// service to mail the owner, with the outcome kept to say whether it went.
import { useState } from 'react'
import type { MailTestResult } from '../../shared/api'
import { useConnectionStore } from '../stores/connection-store'
import { type Action, useAction } from './use-action'

export interface MailTest extends Action<[]> {
  /** The outcome of the last test sent from here (kept while another is on its way). */
  result: MailTestResult | undefined
}

export function useMailTest(): MailTest {
  const [result, setResult] = useState<MailTestResult>()
  const action = useAction(async () => setResult(await useConnectionStore.getState().sendTestMail()))
  return { ...action, result }
}
