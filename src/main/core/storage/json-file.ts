// Small JSON files in the user-data dir (queue, index, connections, watcher state): written
// atomically so a crash or power cut never leaves half a file behind, and readable by the owner only
// (they hold names, e-mails and notes).
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './user-data-dir'

/** Write to a temporary file then rename over the target. */
export async function writeFileAtomic(
  file: string,
  content: string,
  mode = PRIVATE_FILE_MODE,
): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE })
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
  await writeFile(tmp, content, { mode })
  // The mode given at creation passes through the umask; set it exactly before the file is in place.
  await chmod(tmp, mode)
  await rename(tmp, file)
}

/** The parsed file, or `fallback` when it does not exist or is not valid JSON. */
export async function readJsonFile<T>(file: string, fallback: T): Promise<T> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return fallback
    throw error
  }
  try {
    return JSON.parse(text) as T
  } catch {
    // A corrupt state file must not stop the app; keep a copy for diagnosis.
    await rename(file, `${file}.corrupt-${Date.now()}`).catch(() => undefined)
    return fallback
  }
}

/** Serialised writer: the last state always wins, writes never interleave. */
export class JsonFileWriter<T> {
  #chain: Promise<void> = Promise.resolve()
  constructor(
    readonly file: string,
    private readonly mode = PRIVATE_FILE_MODE,
  ) {}
  write(value: T): Promise<void> {
    const text = JSON.stringify(value, null, 2)
    this.#chain = this.#chain.catch(() => undefined).then(() => writeFileAtomic(this.file, text, this.mode))
    return this.#chain
  }
  flush(): Promise<void> {
    return this.#chain.catch(() => undefined)
  }
}
