// Child process of bench/idle.ts: the local Vault Service as it runs for the app (scheduler passes at
// their usual interval, rate limits on), with an account funded through the admin operations.
import { startService } from '../src/service/index'

const dataDir = process.argv[2]
if (!dataDir) {
  console.error('usage: tsx bench/idle-service-child.ts <data-dir>')
  process.exit(2)
}
const service = await startService({ dataDir, port: 0 })
const { accountId, apiKey } = await service.admin.createAccount({ email: 'idle@example.com' })
await service.admin.addCredits({ account: accountId, credits: 1_000_000 })
process.stdout.write(`${JSON.stringify({ url: service.url, apiKey })}\n`)
const stop = () => void service.close().then(() => process.exit(0))
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
