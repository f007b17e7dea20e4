#!/usr/bin/env python3
"""An independent decryptor written from docs/FORMAT.md (version 2) alone, in Python with the
`cryptography` package. Section numbers below refer to that page.

It exists to prove the page is complete: test/crypto/independent-decryptor.test.ts runs it on blobs,
owner kits and guardian shares made by the TypeScript code, and on docs/vectors/vault-desktop-v2.json.

usage:
  independent_decryptor.py --wordlist english.txt (--owner-words W | --share-words W ...) BLOB > FILE
      a file blob: writes the file's bytes to stdout and one JSON line to stderr:
      {"version": 2, "path": "...", "size": N, "vaultId": "...", "used": [...], "ignored": [...]}
  independent_decryptor.py --wordlist english.txt (--owner-words W | ...) --out DIR BLOB
      a bundle (section 3.9): writes each file under DIR at its recorded path, and one JSON line:
      {"kind": "bundle", "createdAt": ms, "files": [{"path": ..., "size": N, "sha256": ...}], ...}
  independent_decryptor.py --wordlist english.txt --vectors vault-desktop-v2.json
      checks every vector in the file; prints "ok" and the counts.
"""
import argparse
import hashlib
import hmac
import itertools
import json
import os
import sys
import unicodedata

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

WORDLIST_SHA256 = "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda"  # section 5.2


class Invalid(Exception):
    pass


def hkdf_expand(prk: bytes, info: bytes, length: int) -> bytes:  # section 1
    out, t, i = b"", b"", 1
    while len(out) < length:
        t = hmac.new(prk, t + info + bytes([i]), hashlib.sha512).digest()
        out += t
        i += 1
    return out[:length]


def load_wordlist(path: str) -> list[str]:
    data = open(path, "rb").read()
    if hashlib.sha256(data).hexdigest() != WORDLIST_SHA256:
        raise Invalid("word list: its SHA-256 is not the one in section 5.2")
    words = data.decode("ascii").split("\n")[:-1]
    assert len(words) == 2048
    return words


# --- section 5: words -> envelope ---------------------------------------------------------------
def vault_id_field(env: bytes, at: int) -> tuple[str, int]:
    if env[at] == 0xFF:
        h = env[at + 1 : at + 17].hex()
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}", at + 17
    n = env[at]
    if not 1 <= n <= 200:
        raise Invalid("vault id field")
    return env[at + 1 : at + 1 + n].decode("utf-8"), at + 1 + n


def words_to_envelope(text: str, wordlist: list[str]) -> bytes:
    index = {w: i for i, w in enumerate(wordlist)}
    words = text.lower().split()
    if not words or any(w not in index for w in words):
        raise Invalid("unknown word")
    bits = "".join(format(index[w], "011b") for w in words)
    data = bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits) - 7, 8))
    try:
        kind = data[1]
        id_at = 34 if kind == 2 else 19
        _, id_end = vault_id_field(data, id_at)
    except (IndexError, UnicodeDecodeError) as e:
        raise Invalid("envelope header") from e
    n = id_end + (4 if kind == 2 else 33 + 4)
    if len(words) != -(-8 * n // 11):
        raise Invalid("word count")
    if int(bits[8 * n :] or "0", 2) != 0:
        raise Invalid("padding")
    env = data[:n]
    if hashlib.sha256(env[:-4]).digest()[:4] != env[-4:]:
        raise Invalid("checksum")
    if env[0] != 1 or kind not in (1, 2):
        raise Invalid("version or kind")
    return env


def owner_kit(text: str, wordlist: list[str]) -> tuple[bytes, str]:
    env = words_to_envelope(text, wordlist)
    if env[1] != 2:
        raise Invalid("not an owner kit")
    return env[2:34], vault_id_field(env, 34)[0]


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


def interpolate(shares: list[bytes]) -> bytes | None:
    xs = [s[-1] for s in shares]
    if len(set(xs)) != len(xs) or 0 in xs:
        return None
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


class Kit:
    def __init__(self, index: int, env: bytes):
        self.index, self.env = index, env
        self.vault_id, id_end = vault_id_field(env, 19)
        self.split_id, self.threshold, self.count, self.number = env[2:6], env[6], env[7], env[8]
        self.fingerprint, self.key_check = env[9:15], env[15:19]
        self.share = env[id_end : id_end + 33]
        # Section 5.1, impossible fields: no kit maker writes these.
        if self.threshold < 2 or self.count < self.threshold or not 1 <= self.number <= self.count:
            raise Invalid("impossible threshold, share count or share number")
        if self.share[-1] == 0:
            raise Invalid("x-coordinate 0")
        # Section 5.4 step 3: kits that differ in any of these never combine.
        self.group = (self.vault_id, self.fingerprint, self.split_id, self.threshold, self.count, self.key_check)


def checked_key(kits: list[Kit]) -> bytes | None:
    key = interpolate([k.share for k in kits])
    if key is None:
        return None
    if hkdf_expand(key, b"vault-desktop/v1/key-check", 4) != kits[0].key_check:
        return None
    if hkdf_expand(key, b"vault-desktop/v1/fingerprint", 6) != kits[0].fingerprint:
        return None
    return key


def distinct(kits: list[Kit]) -> bool:
    """Section 5.4 step 4: kits with one share number or one x-coordinate never combine together."""
    return len({k.number for k in kits}) == len(kits) == len({k.share[-1] for k in kits})


def combine_kits(texts: list[str], wordlist: list[str]) -> tuple[bytes, str, list[int], list[int]]:
    """Section 5.4: returns key, vault id, used positions, ignored positions."""
    ignored, kits, seen = [], [], set()
    for i, text in enumerate(texts):
        try:
            env = words_to_envelope(text, wordlist)
            if env[1] != 1:
                raise Invalid("not a guardian share")
            kit = Kit(i, env)
        except Invalid:
            ignored.append(i)  # step 1: unreadable
            continue
        if env in seen:
            ignored.append(i)  # step 2: duplicate
            continue
        seen.add(env)
        kits.append(kit)
    groups: dict[tuple, list[Kit]] = {}
    for kit in kits:
        groups.setdefault(kit.group, []).append(kit)
    for group in groups.values():  # step 4 (dicts keep insertion order)
        t = group[0].threshold
        if len(group) < t:
            continue
        used, key = group, checked_key(group) if distinct(group) else None
        if key is None and len(group) > t:
            for subset in itertools.combinations(group, t):
                if not distinct(list(subset)):
                    continue
                key = checked_key(list(subset))
                if key is not None:
                    used = list(subset)
                    break
        if key is None:
            continue
        used_ix = [k.index for k in used]
        for k in group:  # step 5: a leftover kit fits if it can stand in for the subset's first
            if k in used:
                continue
            if distinct(used + [k]) and checked_key(used[1:] + [k]) == key:
                used_ix.append(k.index)
            else:
                ignored.append(k.index)
        ignored += [k.index for g in groups.values() if g is not group for k in g]
        return key, group[0].vault_id, sorted(used_ix), sorted(ignored)
    raise Invalid("no group of kits gives a key that passes its check")


# --- section 3: the blob -------------------------------------------------------------------------
CONTROL = [(0x00, 0x1F), (0x7F, 0x9F)]
HIDING = [(0x061C, 0x061C), (0x200E, 0x200F), (0x202A, 0x202E), (0x2066, 0x2069)]


def check_path(raw: bytes) -> str:  # section 3.7, path rules
    if not 1 <= len(raw) <= 4096:
        raise Invalid("path length")
    try:
        path = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        raise Invalid("path is not UTF-8") from e
    if unicodedata.normalize("NFC", path) != path:
        raise Invalid("path is not NFC")
    if path.startswith("/") or "\\" in path:
        raise Invalid("path is absolute or has a backslash")
    if any(seg in ("", ".", "..") for seg in path.split("/")):
        raise Invalid("path has an empty, '.' or '..' segment")
    for ch in path:
        c = ord(ch)
        if any(lo <= c <= hi for lo, hi in CONTROL + HIDING):
            raise Invalid(f"path has U+{c:04X}")
    return path


CONTEXTS = {  # section 3.6: the context whose commitment matches tells the kind
    "file-v2": b"vault-desktop/file/v2",
    "bundle": b"vault-desktop/bundle/v1",
    "file-v1": b"vault-desktop/file/v1",
}


def open_blob(vault_key: bytes, vault_id: str, blob: bytes) -> tuple[str, bytes]:
    """Returns (kind, whole plaintext) of an authenticated blob; raises on anything invalid."""
    files_key = hkdf_expand(vault_key, b"vault-desktop/v1/files-key", 32)
    if len(blob) < 56:
        raise Invalid("truncated header")
    salt, commitment = blob[:24], blob[24:56]
    for kind, prefix in CONTEXTS.items():
        context = prefix + b"\x00" + vault_id.encode("utf-8")
        info = b"c2sp.org/chunked-encryption@v1+AEAD_AES_256_GCM\x00" + salt + context
        okm = hkdf_expand(files_key, info, 76)
        if hmac.compare_digest(okm[44:], commitment):
            break
    else:
        raise Invalid("wrong key, wrong vault id or damaged header")
    aead, base_nonce = AESGCM(okm[:32]), int.from_bytes(okm[32:44], "big")
    body, out, i = blob[56:], bytearray(), 0
    while True:  # section 3.4 and 3.5
        rest = body[i * 16400 :]
        final = len(rest) <= 16400
        sealed = rest if final else rest[:16400]
        if final and not 16 <= len(sealed) <= 16399:
            raise Invalid("truncated")
        try:
            out += aead.decrypt((base_nonce ^ i).to_bytes(12, "big"), sealed, None)
        except InvalidTag as e:
            raise Invalid(f"chunk {i} does not authenticate") from e
        if final:
            break
        i += 1
    return kind, bytes(out)


def read_record(out: bytes, at: int) -> tuple[str, int, int]:
    """Section 3.7: the identity record at `at`; returns (path, size, offset after it)."""
    if len(out) < at + 10:
        raise Invalid("plaintext too short for an identity record")
    size, path_length = int.from_bytes(out[at : at + 8], "big"), int.from_bytes(out[at + 8 : at + 10], "big")
    if size > 2**53 - 1:
        raise Invalid("size beyond 2^53 - 1")
    if len(out) < at + 10 + path_length:
        raise Invalid("identity record cut short")
    return check_path(out[at + 10 : at + 10 + path_length]), size, at + 10 + path_length


def decrypt(vault_key: bytes, vault_id: str, blob: bytes) -> tuple[int, str | None, bytes]:
    """A file blob: returns (format version, path or None, file content); raises on anything invalid."""
    kind, out = open_blob(vault_key, vault_id, blob)
    if kind == "bundle":
        raise Invalid("this blob is a bundle of files (section 3.9), not a single file")
    if kind == "file-v1":
        return 1, None, out
    path, size, at = read_record(out, 0)
    content = out[at:]
    if len(content) != size:
        raise Invalid(f"{len(content)} bytes of content, the record says {size}")
    return 2, path, content


def decrypt_bundle(vault_key: bytes, vault_id: str, blob: bytes) -> tuple[int, list[tuple[str, bytes]]]:
    """Section 3.9: returns (createdAt, [(path, content), ...]); raises on anything invalid."""
    kind, out = open_blob(vault_key, vault_id, blob)
    if kind != "bundle":
        raise Invalid("this blob is a single file, not a bundle")
    if len(out) < 12:
        raise Invalid("plaintext too short for the bundle header")
    created_at, count = int.from_bytes(out[0:8], "big"), int.from_bytes(out[8:12], "big")
    if created_at > 2**53 - 1:
        raise Invalid("createdAt beyond 2^53 - 1")
    if not 1 <= count <= 65536:
        raise Invalid(f"count {count} is not 1 to 65536")
    records, at = [], 12
    for _ in range(count):
        path, size, at = read_record(out, at)
        records.append((path, size))
    paths = [p for p, _ in records]
    if len(set(paths)) != len(paths):
        raise Invalid("a path appears twice")
    total = sum(size for _, size in records)
    if total > 2**53 - 1:
        raise Invalid("sizes add up beyond 2^53 - 1")
    if len(out) - at != total:
        raise Invalid(f"{len(out) - at} bytes of contents, the records say {total}")
    files = []
    for path, size in records:
        files.append((path, out[at : at + size]))
        at += size
    return created_at, files


# --- docs/vectors/vault-desktop-v2.json (section 7) -----------------------------------------------
def check_vectors(path: str, wordlist: list[str]) -> str:
    vectors = json.load(open(path))
    assert vectors["wordList"]["sha256"] == WORDLIST_SHA256
    for v in vectors["blobs"]:
        version, got_path, content = decrypt(bytes.fromhex(v["vaultKey"]), v["vaultId"], bytes.fromhex(v["blob"]))
        assert version == v["formatVersion"], v["name"]
        assert got_path == v.get("path"), v["name"]
        assert len(content) == v["size"] and hashlib.sha256(content).hexdigest() == v["contentSha256"], v["name"]
    for b in vectors["bundles"]:
        created_at, files = decrypt_bundle(bytes.fromhex(b["vaultKey"]), b["vaultId"], bytes.fromhex(b["blob"]))
        assert created_at == b["createdAtMs"], b["name"]
        assert [p for p, _ in files] == [f["path"] for f in b["files"]], b["name"]
        for (_, content), f in zip(files, b["files"]):
            assert len(content) == f["size"] and hashlib.sha256(content).hexdigest() == f["contentSha256"], b["name"]
    for b in vectors["invalidBundles"]:
        try:
            decrypt_bundle(bytes.fromhex(b["vaultKey"]), b["vaultId"], bytes.fromhex(b["blob"]))
        except Invalid:
            continue
        raise AssertionError(f"{b['name']} was accepted")
    for s in vectors["splits"]:
        key, vault_id = owner_kit(s["ownerWords"], wordlist)
        assert (key.hex(), vault_id) == (s["vaultKey"], s["vaultId"]), s["name"]
        words = [r["words"] for r in s["shares"]]
        for subset in itertools.combinations(words, s["threshold"]):
            key, vault_id, _, _ = combine_kits(list(subset), wordlist)
            assert (key.hex(), vault_id) == (s["vaultKey"], s["vaultId"]), s["name"]
    for c in vectors["combinations"]:
        key, vault_id, used, ignored = combine_kits(c["kits"], wordlist)
        assert (key.hex(), vault_id, used, ignored) == (c["vaultKey"], c["vaultId"], c["used"], c["ignored"]), c["name"]
    counts = [f"{len(vectors[k])} {k}" for k in ("blobs", "bundles", "invalidBundles", "splits", "combinations")]
    return "ok: " + ", ".join(counts)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--wordlist", required=True)
    p.add_argument("--owner-words")
    p.add_argument("--share-words", action="append", default=[])
    p.add_argument("--vectors")
    p.add_argument("--out")
    p.add_argument("blob", nargs="?")
    a = p.parse_args()
    wordlist = load_wordlist(a.wordlist)
    if a.vectors:
        print(check_vectors(a.vectors, wordlist))
        return
    used, ignored = [], []
    if a.owner_words:
        key, vault_id = owner_kit(a.owner_words, wordlist)
    else:
        key, vault_id, used, ignored = combine_kits(a.share_words, wordlist)
    blob = open(a.blob, "rb").read()
    if a.out:
        created_at, files = decrypt_bundle(key, vault_id, blob)
        for path, content in files:  # the path rules keep every file inside DIR
            target = os.path.join(a.out, *path.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "xb") as f:
                f.write(content)
        listed = [{"path": p, "size": len(c), "sha256": hashlib.sha256(c).hexdigest()} for p, c in files]
        info = {"kind": "bundle", "createdAt": created_at, "files": listed, "vaultId": vault_id}
        sys.stderr.write(json.dumps(info) + "\n")
        return
    version, path, content = decrypt(key, vault_id, blob)
    info = {"version": version, "path": path, "size": len(content), "vaultId": vault_id, "used": used, "ignored": ignored}
    sys.stderr.write(json.dumps(info) + "\n")
    sys.stdout.buffer.write(content)


if __name__ == "__main__":
    try:
        main()
    except Invalid as e:
        sys.stderr.write(f"invalid: {e}\n")
        sys.exit(1)
