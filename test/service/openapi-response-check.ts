// Checks one answer of the Vault Service against its OpenAPI document (src/service/openapi): the status
// must be documented for the operation, the content type among its media types, and a JSON body must
// match the schema. Answers to routes the document does not name must be the error envelope.
// Stricter than the published document in one way: an object may not carry a field the document does
// not name (the document leaves objects open so clients ignore fields added later; here a new field the
// document misses is a failure, which keeps the two in step).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { buildVaultApiDocument } from '../../src/service/openapi/vault-api-document'
import { ERROR_CODES, type ErrorStatus } from '../../src/shared/api'

export interface ObservedAnswer {
  method: string
  /** Full URL or path (a query is ignored). */
  url: string
  status: number
  contentType: string | null
  body: Uint8Array | string
}

type Json = { [key: string]: unknown }

const document = buildVaultApiDocument() as Json & {
  servers: { url: string }[]
  paths: Record<string, Json & { servers?: { url: string }[] }>
  components: { responses: Record<string, Json>; schemas: Record<string, Json> }
}

const SCHEMAS_ID = 'vault-api-schemas'

/** Every object that lists properties closed to others; refs pointed at the schemas registered below. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed)
  if (schema === null || typeof schema !== 'object') return schema
  const out: Json = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
      out[key] = `${SCHEMAS_ID}#/$defs/${value.slice('#/components/schemas/'.length)}`
    } else out[key] = closed(value)
  }
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false
  return out
}

const ajv = new Ajv2020({ allErrors: true, strict: true })
addFormats(ajv)
ajv.addSchema({ $id: SCHEMAS_ID, $defs: closed(document.components.schemas) as Json })

interface Route {
  pattern: RegExp
  /** Literal segments first: /vault/{id}/asset before anything with more parameters. */
  params: number
  item: Json
}

const routes: Route[] = Object.entries(document.paths)
  .flatMap(([path, item]) =>
    (item.servers ?? document.servers).map((server) => {
      const full = `${server.url.replace(/\/$/, '')}${path}`
      const source = full.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')
      return { pattern: new RegExp(`^${source}$`), params: path.split('{').length - 1, item }
    }),
  )
  .sort((a, b) => a.params - b.params)

function resolve(object: Json): Json {
  const target = object.$ref
  if (typeof target !== 'string') return object
  const name = target.replace('#/components/responses/', '')
  const found = document.components.responses[name]
  if (!found) throw new Error(`the document refers to ${target}, which it does not define`)
  return found
}

const compiled = new Map<string, ValidateFunction>()
function validatorFor(key: string, schema: unknown): ValidateFunction {
  let validate = compiled.get(key)
  if (!validate) {
    validate = ajv.compile(closed(schema) as Json)
    compiled.set(key, validate)
  }
  return validate
}

/** The envelope an answer must have on a route the document does not name (a 404, a refused Host ...). */
function envelopeSchema(status: number): Json {
  const code = ERROR_CODES[status as ErrorStatus]
  return {
    type: 'object',
    properties: {
      error: {
        type: 'object',
        properties: { code: { const: code ?? null }, message: { type: 'string' }, status: { const: status } },
        required: ['code', 'message', 'status'],
      },
    },
    required: ['error'],
  }
}

const pathOf = (url: string) => {
  const path = new URL(url, 'http://service.invalid').pathname
  return path.length > 1 ? path.replace(/\/$/, '') : path
}

/** What is wrong with an answer, by the document; empty when nothing is. */
export function answerProblems(answer: ObservedAnswer): string[] {
  const method = answer.method.toUpperCase()
  const path = pathOf(answer.url)
  const what = `${method} ${path} answered ${answer.status}`
  const text = typeof answer.body === 'string' ? answer.body : Buffer.from(answer.body).toString('utf8')
  const mediaType = answer.contentType ? answer.contentType.split(';')[0]!.trim().toLowerCase() : null

  const route = routes.find((candidate) => candidate.pattern.test(path))
  // HEAD answers as GET does, without a body.
  const operation = route?.item[method === 'HEAD' ? 'get' : method.toLowerCase()] as Json | undefined
  let response: Json
  let key: string
  if (!operation) {
    // No such operation: the router's 404, or a refusal before routing; always the error envelope.
    if (!(answer.status in ERROR_CODES)) {
      return [`${what}, a status the error envelope has no code for, on a route the document does not name`]
    }
    response = { content: { 'application/json': { schema: envelopeSchema(answer.status) } } }
    key = `unnamed ${answer.status}`
  } else {
    const responses = operation.responses as Record<string, Json>
    const documented =
      responses[String(answer.status)] ?? responses[`${String(answer.status)[0]}XX`] ?? responses.default
    if (!documented) {
      return [
        `${what}, a status the document does not list for ${operation.operationId} (it lists ${Object.keys(responses).join(', ')})`,
      ]
    }
    response = resolve(documented)
    key = `${operation.operationId} ${answer.status}`
  }

  const content = response.content as Record<string, Json> | undefined
  if (!content) {
    return text === '' || method === 'HEAD' ? [] : [`${what} with a body where the document says none`]
  }
  if (mediaType === null || !content[mediaType]) {
    return [
      `${what} as ${mediaType ?? 'no Content-Type'}; the document says ${Object.keys(content).join(' or ')}`,
    ]
  }
  if (mediaType !== 'application/json' || method === 'HEAD') return []
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return [`${what} with a body that is not JSON: ${text.slice(0, 200)}`]
  }
  const validate = validatorFor(`${key} ${mediaType}`, content[mediaType]!.schema)
  if (validate(body)) return []
  return (validate.errors ?? []).slice(0, 5).map((error) => {
    const where = error.instancePath || '(the body)'
    const detail =
      error.keyword === 'additionalProperties'
        ? `has "${(error.params as { additionalProperty: string }).additionalProperty}", which the document does not name`
        : error.message
    return `${what}: ${where} ${detail}`
  })
}
