// Child process of bench/upload.ts and bench/owner-download.ts (started by bench/bench-processes.ts):
// the local Vault Service with rate limits off and an account funded through the admin operations
// (the clients make their vaults), so the benchmark's own process measures only the client.
import { startService } from '../src/service/index'

const dataDir = process.argv[2]
if (!dataDir) {
  console.error('usage: tsx bench/upload-service-child.ts <data-dir>')
  process.exit(2)
}
const service = await startService({ dataDir, port: 0, rateLimits: false, tickIntervalMs: 3_600_000 })
const { accountId, apiKey } = await service.admin.createAccount({ email: 'bench@example.com' })
await service.admin.addCredits({ account: accountId, credits: 10_000_000 })
process.stdout.write(`${JSON.stringify({ url: service.url, apiKey })}\n`)
const stop = () => void service.close().then(() => process.exit(0))
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
