// `npm run service` / `npm run recover`: builds one command-line entry, then runs it in this same process,
// so a signal sent to this process (Ctrl-C, SIGTERM) reaches the tool itself.
//
// Under npm there is a shell in between (npm -> sh -c "..." -> node), and npm forwards SIGTERM only to that
// shell, which dies without passing it on: the tool would keep running as an orphan, holding its port and
// the data directory's lock. So under npm this process also watches its parent and, once the shell is gone,
// stops itself the way a SIGTERM would.
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const [name, ...args] = process.argv.slice(2)
const ENTRIES = { service: 'out/cli/service.js', recover: 'out/cli/recover.js' }
const LAUNCHER_USAGE = `Usage: node scripts/run-cli.mjs <${Object.keys(ENTRIES).join('|')}> [arguments]
(npm run service -- --help and npm run recover -- --help explain each tool.)`
if (name === '--help' || name === '-h') {
  console.log(LAUNCHER_USAGE)
  process.exit(0)
}
if (!Object.hasOwn(ENTRIES, name ?? '')) {
  console.error(`run-cli: unknown tool ${JSON.stringify(name ?? '')}.\n\n${LAUNCHER_USAGE}`)
  process.exit(2)
}

const built = spawnSync(process.execPath, [join(root, 'scripts/build-cli.mjs'), name], {
  cwd: root,
  stdio: 'inherit',
})
if (built.status !== 0) process.exit(built.status ?? 1)

if (process.env.npm_lifecycle_event) {
  const parent = process.ppid
  const watch = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(watch)
    // The tool's own SIGTERM handling runs (the service closes cleanly); without one, Node exits.
    process.kill(process.pid, 'SIGTERM')
  }, 200)
  // The watch alone must not keep a finished tool alive.
  watch.unref()
}

const entry = join(root, ENTRIES[name])
// The tool reads its arguments from process.argv as if it had been started as `node <entry> ...`.
process.argv = [process.argv[0], entry, ...args]
await import(pathToFileURL(entry).href)
