// `npm test` step: writes the service's OpenAPI document (src/service/openapi) to a temp file (indented,
// so problems point at a readable line) and lints it with Redocly under redocly.yaml. Exits non-zero on any problem.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const root = join(import.meta.dirname, '..')
const dir = mkdtempSync(join(tmpdir(), 'vault-openapi-'))
const file = join(dir, 'openapi.json')
const source = pathToFileURL(join(root, 'src/service/openapi/vault-api-document.ts')).href
// No usage report to Redocly's servers from a test run, and no update notice.
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }

function run(args) {
  const result = spawnSync(process.execPath, args, { cwd: root, env, stdio: 'inherit' })
  return result.status === 0
}

let ok = false
try {
  ok =
    run([
      '--import',
      'tsx',
      '--input-type=module',
      '--eval',
      `import { writeFileSync } from 'node:fs'
       import { buildVaultApiDocument } from ${JSON.stringify(source)}
       writeFileSync(${JSON.stringify(file)}, JSON.stringify(buildVaultApiDocument(), null, 2))`,
    ]) &&
    run([
      join(root, 'node_modules/@redocly/cli/bin/cli.js'),
      'lint',
      file,
      '--config',
      join(root, 'redocly.yaml'),
    ])
} finally {
  rmSync(dir, { recursive: true, force: true })
}
process.exit(ok ? 0 : 1)
