import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createSecretBox, keptSecretKey, parseSecretKey } from './secret-box.js'

describe('secret box', () => {
  it('seals a secret so the text holds no trace of it, and opens it with the same key only', () => {
    const box = createSecretBox(randomBytes(32))
    const sealed = box.seal('whsec_abc123')
    expect(sealed).not.toContain('whsec')
    expect(sealed).not.toBe(box.seal('whsec_abc123'))
    expect(box.open(sealed)).toBe('whsec_abc123')
    expect(() => createSecretBox(randomBytes(32)).open(sealed)).toThrow()
    const [v, iv, tag, text] = sealed.split('.')
    const altered = [v, iv, tag, Buffer.from('x' + text).toString('base64')].join('.')
    expect(() => box.open(altered)).toThrow()
  })

  it('reads a key as 64 hex digits or base64 of 32 bytes, and nothing else', () => {
    const key = randomBytes(32)
    expect(parseSecretKey(key.toString('hex'))).toEqual(key)
    expect(parseSecretKey(key.toString('base64'))).toEqual(key)
    expect(parseSecretKey(randomBytes(16).toString('hex'))).toBeUndefined()
    expect(parseSecretKey('not a key')).toBeUndefined()
  })

  it('keeps a generated key owner-only and gives every caller the same one', async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'bankrec-key-')), 'secret-key')
    const keys = await Promise.all([keptSecretKey(file), keptSecretKey(file), keptSecretKey(file)])
    expect(keys[1]).toEqual(keys[0])
    expect(keys[2]).toEqual(keys[0])
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    expect(parseSecretKey(await readFile(file, 'utf8'))).toEqual(keys[0])
  })
})
