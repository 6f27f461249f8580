import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { promises as fs } from 'node:fs'
import path from 'node:path'

/** Seals secrets for storage (AES-256-GCM) and opens them again; the key never leaves it. */
export type SecretBox = {
  seal(plain: string): string
  /** Throws when the text was sealed with another key or altered. */
  open(sealed: string): string
}

const VERSION = 'v1'
/** Binds a sealed value to its use, so a sealed secret copied into another column does not open there. */
const AAD = Buffer.from('bankrec webhook signing secret')

/** BANKREC_SECRET_KEY: 32 bytes as 64 hex digits or as base64; undefined for anything else. */
export function parseSecretKey(text: string): Buffer | undefined {
  const trimmed = text.trim()
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex')
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return undefined
  const bytes = Buffer.from(trimmed, 'base64')
  return bytes.length === 32 ? bytes : undefined
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new TypeError('The secret key must be 32 bytes.')
  return {
    seal(plain) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(AAD)
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return [VERSION, iv, cipher.getAuthTag(), sealed]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64')))
        .join('.')
    },
    open(sealed) {
      const [version, iv, tag, text, ...rest] = sealed.split('.')
      if (version !== VERSION || !iv || !tag || text === undefined || rest.length > 0) {
        throw new Error('The sealed secret is not in the v1 format.')
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'))
        .setAAD(AAD)
        .setAuthTag(Buffer.from(tag, 'base64'))
      return Buffer.concat([decipher.update(Buffer.from(text, 'base64')), decipher.final()]).toString('utf8')
    },
  }
}

/** The file a key generated in zero-config mode is kept in, beside the data directory. */
export const SECRET_KEY_FILE = 'secret-key'

/**
 * The key kept in `file` (owner-only, 0600), made on first use; processes starting together agree on one key; a file that holds no key is an error, never silently replaced (the secrets sealed
 * with it would be lost).
 */
export async function keptSecretKey(file: string): Promise<Buffer> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
  const fresh = randomBytes(32)
  // Written whole under a private name, then linked into place: link fails if the file exists, so a process
  // starting at the same moment reads the complete key of the winner, never a half-written file.
  const staging = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`
  await fs.writeFile(staging, `${fresh.toString('base64')}\n`, { mode: 0o600, flag: 'wx' })
  try {
    await fs.link(staging, file)
    return fresh
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  } finally {
    await fs.unlink(staging)
  }
  const key = parseSecretKey(await fs.readFile(file, 'utf8'))
  if (!key)
    throw new Error(
      `${file} holds no secret key (32 bytes, base64 or hex); restore it or set BANKREC_SECRET_KEY.`,
    )
  return key
}
