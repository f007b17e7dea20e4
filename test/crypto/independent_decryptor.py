#!/usr/bin/env python3
"""An independent decryptor written from docs/FORMAT.md alone (Python + the `cryptography` package).

It exists to prove the page is complete: test/crypto/independent-decryptor.test.ts runs it on blobs,
owner kits and guardian shares made by the TypeScript code.

usage: independent_decryptor.py --wordlist english.txt (--owner-words W | --share-words W ...) BLOB > PLAINTEXT
"""
import argparse
import hashlib
import hmac
import sys

from cryptography.hazmat.primitives.ciphers.aead import AESGCM


def hkdf_expand(prk: bytes, info: bytes, length: int) -> bytes:
    out, t, i = b"", b"", 1
    while len(out) < length:
        t = hmac.new(prk, t + info + bytes([i]), hashlib.sha512).digest()
        out += t
        i += 1
    return out[:length]


# --- section 5: words -> envelope ---------------------------------------------------------------
def words_to_envelope(text: str, wordlist: list[str]) -> bytes:
    index = {w: i for i, w in enumerate(wordlist)}
    words = text.lower().split()
    bits = "".join(format(index[w], "011b") for w in words)
    data = bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits) - 7, 8))
    kind = data[1]
    id_at = 34 if kind == 2 else 19
    id_len = 17 if data[id_at] == 0xFF else 1 + data[id_at]
    n = id_at + id_len + (4 if kind == 2 else 33 + 4)
    assert len(words) == -(-8 * n // 11), "word count"
    assert int(bits[8 * n :] or "0", 2) == 0, "padding"
    env = data[:n]
    assert hashlib.sha256(env[:-4]).digest()[:4] == env[-4:], "checksum"
    assert env[0] == 1, "version"
    return env


def vault_id_field(env: bytes, at: int) -> str:
    if env[at] == 0xFF:
        h = env[at + 1 : at + 17].hex()
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    return env[at + 1 : at + 1 + env[at]].decode("utf-8")


# --- section 4: GF(2^8) with x^8 + x^4 + x^3 + x + 1 -------------------------------------------
def gf_mul(a: int, b: int) -> int:
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        if a & 0x100:
            a ^= 0x11B
        b >>= 1
    return r


def gf_inv(a: int) -> int:
    r = 1
    for _ in range(254):
        r = gf_mul(r, a)
    return r


def combine(shares: list[bytes]) -> bytes:
    xs = [s[-1] for s in shares]
    key = bytearray(32)
    for pos in range(32):
        acc = 0
        for j, s in enumerate(shares):
            basis = 1
            for m, xm in enumerate(xs):
                if m != j:
                    basis = gf_mul(basis, gf_mul(xm, gf_inv(xm ^ xs[j])))
            acc ^= gf_mul(s[pos], basis)
        key[pos] = acc
    return bytes(key)


def key_from_shares(texts: list[str], wordlist: list[str]) -> tuple[bytes, str]:
    envs = [words_to_envelope(t, wordlist) for t in texts]
    assert all(e[1] == 1 for e in envs)
    assert len({e[2:6] for e in envs}) == 1, "same split"
    id_len = lambda e: 17 if e[19] == 0xFF else 1 + e[19]
    key = combine([e[19 + id_len(e) : 19 + id_len(e) + 33] for e in envs])
    assert hkdf_expand(key, b"vault-desktop/v1/key-check", 4) == envs[0][15:19], "key check"
    assert hkdf_expand(key, b"vault-desktop/v1/fingerprint", 6) == envs[0][9:15], "fingerprint"
    return key, vault_id_field(envs[0], 19)


# --- section 3: the blob -------------------------------------------------------------------------
def decrypt(vault_key: bytes, vault_id: str, blob: bytes) -> bytes:
    files_key = hkdf_expand(vault_key, b"vault-desktop/v1/files-key", 32)
    context = b"vault-desktop/file/v1\x00" + vault_id.encode("utf-8")
    if len(blob) < 56:
        raise ValueError("truncated header")
    salt, commitment = blob[:24], blob[24:56]
    okm = hkdf_expand(files_key, b"c2sp.org/chunked-encryption@v1+AEAD_AES_256_GCM\x00" + salt + context, 76)
    key, base_nonce, expected = okm[:32], okm[32:44], okm[44:]
    if not hmac.compare_digest(expected, commitment):
        raise ValueError("wrong key or vault id")
    aead, body, out, i = AESGCM(key), blob[56:], bytearray(), 0
    while True:
        rest = body[i * 16400 :]
        final = len(rest) <= 16400
        sealed = rest if final else rest[:16400]
        if final and not (16 <= len(sealed) <= 16399):
            raise ValueError("truncated")
        nonce = (int.from_bytes(base_nonce, "big") ^ i).to_bytes(12, "big")
        out += aead.decrypt(nonce, sealed, None)
        if final:
            return bytes(out)
        i += 1


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--wordlist", required=True)
    p.add_argument("--owner-words")
    p.add_argument("--share-words", action="append", default=[])
    p.add_argument("blob")
    a = p.parse_args()
    wordlist = open(a.wordlist).read().split()
    assert len(wordlist) == 2048
    if a.owner_words:
        env = words_to_envelope(a.owner_words, wordlist)
        assert env[1] == 2
        key, vault_id = env[2:34], vault_id_field(env, 34)
    else:
        key, vault_id = key_from_shares(a.share_words, wordlist)
    sys.stdout.buffer.write(decrypt(key, vault_id, open(a.blob, "rb").read()))


if __name__ == "__main__":
    main()
