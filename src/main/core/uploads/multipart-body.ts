// multipart/form-data built by hand as a stream: text fields first, the (encrypted) file last, so
// the exact Content-Length is known before the first byte is sent and nothing is buffered whole.
import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'

export interface MultipartFile {
  fieldName: string
  filename: string
  contentType: string
  /** Exact byte length of what `content()` yields. */
  length: number
  /** A fresh source of the file's bytes on each call. */
  content: () => AsyncIterable<Uint8Array>
}

export interface MultipartBody {
  contentType: string
  contentLength: number
  /** A fresh body stream on each call (retries start over). */
  stream: () => Readable
}

/** Header values must not break the part headers: no quotes, CR or LF; non-ASCII kept as UTF-8. */
function quoted(value: string): string {
  return value.replace(/[\r\n"\\]/g, '_')
}

export function buildMultipartBody(fields: Array<[string, string]>, file: MultipartFile): MultipartBody {
  const boundary = `----VaultDesktop${randomBytes(16).toString('hex')}`
  const head = Buffer.from(
    fields
      .map(
        ([name, value]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`,
      )
      .join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.fieldName)}"; filename="${quoted(file.filename)}"\r\n` +
      `Content-Type: ${file.contentType}\r\n\r\n`,
    'utf8',
  )
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8')
  for (const [, value] of fields) {
    if (value.includes(`--${boundary}`)) throw new Error('a form field contains the multipart boundary')
  }
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: head.length + file.length + tail.length,
    stream: () =>
      Readable.from(
        (async function* () {
          yield head
          let sent = 0
          for await (const chunk of file.content()) {
            sent += chunk.length
            yield chunk
          }
          if (sent !== file.length) {
            throw new Error(`the file body was ${sent} bytes, ${file.length} were announced`)
          }
          yield tail
        })(),
        { objectMode: false },
      ),
  }
}
