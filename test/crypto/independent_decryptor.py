#!/usr/bin/env python3
"""An independent decryptor written from docs/FORMAT.md (version 3) alone, in Python with the
`cryptography` package. Section numbers below refer to that page.

It exists to prove the page is complete: test/crypto/independent-decryptor.test.ts runs it on blobs,
bundles, manifests, owner kits and guardian shares made by the TypeScript code, and on
docs/vectors/vault-desktop-v2.json and vault-desktop-v3.json.

usage:
  independent_decryptor.py --wordlist english.txt (--owner-words W | --share-words W ...) BLOB > FILE
      a file blob: writes the file's bytes to stdout and one JSON line to stderr:
      {"version": 3, "path": "...", "writtenAt": ms, "size": N, "vaultId": "...", "used": [...], ...}
      a manifest blob (section 3.10): writes nothing to stdout, and one JSON line to stderr:
      {"kind": "manifest", "sequence": N, "writtenAt": ms, "entries": [{"path", "size", "sha256", "writtenAt"}]}
  independent_decryptor.py --wordlist english.txt (--owner-words W | ...) --out DIR BLOB
      a bundle (section 3.9): writes each file under DIR at its recorded path, and one JSON line:
      {"kind": "bundle", "version": 2, "createdAt": ms, "files": [{"path", "size", "sha256", "writtenAt"}],
       "manifest": {...} or null, ...}
  independent_decryptor.py --wordlist english.txt --vectors vault-desktop-v2.json (or -v3.json)
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
    "file-v3": b"vault-desktop/file/v3",
    "bundle-v2": b"vault-desktop/bundle/v2",
    "file-v2": b"vault-desktop/file/v2",
    "bundle-v1": b"vault-desktop/bundle/v1",
    "manifest": b"vault-desktop/manifest/v1",
    "file-v1": b"vault-desktop/file/v1",
}
MAX_TIME = 2**53 - 1  # section 1: times and sizes


def folder_clash(paths: list[str]) -> str | None:
    """Sections 3.8-3.10: a path that is also a folder of another path ('a' and 'a/b')."""
    listed = set(paths)
    for path in paths:
        parts = path.split("/")
        for i in range(1, len(parts)):
            if "/".join(parts[:i]) in listed:
                return "/".join(parts[:i])
    return None


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


def read_record(out: bytes, at: int, version: int = 3) -> tuple[str, int, int | None, int]:
    """Section 3.7: the identity record (format 3 or 2) at `at`; returns (path, size, writtenAt, end)."""
    fixed = 18 if version == 3 else 10
    if len(out) < at + fixed:
        raise Invalid("plaintext too short for an identity record")
    size = int.from_bytes(out[at : at + 8], "big")
    written_at = int.from_bytes(out[at + 8 : at + 16], "big") if version == 3 else None
    path_length = int.from_bytes(out[at + fixed - 2 : at + fixed], "big")
    if size > MAX_TIME or (written_at is not None and written_at > MAX_TIME):
        raise Invalid("size or write time beyond 2^53 - 1")
    if len(out) < at + fixed + path_length:
        raise Invalid("identity record cut short")
    return check_path(out[at + fixed : at + fixed + path_length]), size, written_at, at + fixed + path_length


def decrypt(vault_key: bytes, vault_id: str, blob: bytes) -> tuple[int, str | None, int | None, bytes]:
    """A file blob: returns (format version, path, writtenAt, file content); raises on anything invalid."""
    kind, out = open_blob(vault_key, vault_id, blob)
    if not kind.startswith("file-"):
        raise Invalid(f"this blob is a {kind} (section 3.6), not a single file")
    if kind == "file-v1":
        return 1, None, None, out
    version = 3 if kind == "file-v3" else 2
    path, size, written_at, at = read_record(out, 0, version)
    content = out[at:]
    if len(content) != size:
        raise Invalid(f"{len(content)} bytes of content, the record says {size}")
    return version, path, written_at, content


def parse_manifest(out: bytes) -> dict:
    """Section 3.10: the manifest's plaintext, checked in full; raises on anything invalid."""
    if len(out) < 20:
        raise Invalid("manifest shorter than its header")
    sequence, written_at = int.from_bytes(out[0:8], "big"), int.from_bytes(out[8:16], "big")
    count = int.from_bytes(out[16:20], "big")
    if not 1 <= sequence <= MAX_TIME or written_at > MAX_TIME or count > 1_000_000:
        raise Invalid("manifest header out of range")
    entries, previous, at = [], b"", 20
    for i in range(count):
        if len(out) < at + 52:
            raise Invalid("manifest cut short")
        size, entry_time = int.from_bytes(out[at : at + 8], "big"), int.from_bytes(out[at + 8 : at + 16], "big")
        digest = out[at + 16 : at + 48].hex()
        shared, suffix_length = int.from_bytes(out[at + 48 : at + 50], "big"), int.from_bytes(out[at + 50 : at + 52], "big")
        suffix = out[at + 52 : at + 52 + suffix_length]
        at += 52 + suffix_length
        if len(suffix) != suffix_length or suffix_length == 0 or shared > len(previous):
            raise Invalid("manifest entry cut short or impossible")
        raw = previous[:shared] + suffix
        common = 0
        while common < min(len(previous), len(raw)) and previous[common] == raw[common]:
            common += 1
        if common != shared:
            raise Invalid("shared is not the common prefix")
        if i > 0 and not previous < raw:  # bytes compare byte for byte
            raise Invalid("paths not in ascending order")
        if size > MAX_TIME or entry_time > written_at:
            raise Invalid("entry size beyond 2^53 - 1 or written after the manifest")
        entries.append({"path": check_path(raw), "size": size, "sha256": digest, "writtenAt": entry_time})
        previous = raw
    if at != len(out):
        raise Invalid("bytes after the last manifest entry")
    if folder_clash([e["path"] for e in entries]):
        raise Invalid("a path is also a folder of another path")
    return {"sequence": sequence, "writtenAt": written_at, "entries": entries}


def decrypt_manifest(vault_key: bytes, vault_id: str, blob: bytes) -> dict:
    kind, out = open_blob(vault_key, vault_id, blob)
    if kind != "manifest":
        raise Invalid(f"this blob is a {kind}, not a manifest")
    return parse_manifest(out)


def decrypt_bundle(vault_key: bytes, vault_id: str, blob: bytes) -> tuple[int, int, list[tuple[str, int | None, bytes]], dict | None]:
    """Section 3.9: returns (version, createdAt, [(path, writtenAt, content), ...], manifest or None)."""
    kind, out = open_blob(vault_key, vault_id, blob)
    if kind not in ("bundle-v1", "bundle-v2"):
        raise Invalid(f"this blob is a {kind}, not a bundle")
    version = 2 if kind == "bundle-v2" else 1
    fixed = 16 if version == 2 else 12
    if len(out) < fixed:
        raise Invalid("plaintext too short for the bundle header")
    created_at, count = int.from_bytes(out[0:8], "big"), int.from_bytes(out[8:12], "big")
    manifest_length = int.from_bytes(out[12:16], "big") if version == 2 else 0
    if created_at > MAX_TIME:
        raise Invalid("writtenAt beyond 2^53 - 1")
    if not 1 <= count <= 65536:
        raise Invalid(f"count {count} is not 1 to 65536")
    records, at = [], fixed
    for _ in range(count):
        path, size, written_at, at = read_record(out, at, 3 if version == 2 else 2)
        records.append((path, size, written_at))
    paths = [p for p, _, _ in records]
    if len(set(paths)) != len(paths):
        raise Invalid("a path appears twice")
    if version == 2 and folder_clash(paths):
        raise Invalid("a path is also a folder of another path")
    manifest = None
    if manifest_length:
        if len(out) < at + manifest_length:
            raise Invalid("bundle ends inside its manifest")
        manifest = decrypt_manifest(vault_key, vault_id, out[at : at + manifest_length])
        at += manifest_length
    total = sum(size for _, size, _ in records)
    if total > MAX_TIME:
        raise Invalid("sizes add up beyond 2^53 - 1")
    if len(out) - at != total:
        raise Invalid(f"{len(out) - at} bytes of contents, the records say {total}")
    files = []
    for path, size, written_at in records:
        files.append((path, written_at, out[at : at + size]))
        at += size
    return version, created_at, files, manifest


def choose_manifest(found: list[dict]) -> dict | None:
    """Section 3.11: the highest sequence number, then the later writtenAt, then the first found."""
    chosen = None
    for m in found:
        if chosen is None or (m["sequence"], m["writtenAt"]) > (chosen["sequence"], chosen["writtenAt"]):
            chosen = m
    return chosen


# --- docs/vectors/vault-desktop-v2.json and -v3.json (section 7) ------------------------------------
def check_vectors(path: str, wordlist: list[str]) -> str:
    vectors = json.load(open(path))
    if "manifests" in vectors:
        return check_vectors_v3(vectors)
    assert vectors["wordList"]["sha256"] == WORDLIST_SHA256
    for v in vectors["blobs"]:
        version, got_path, _, content = decrypt(bytes.fromhex(v["vaultKey"]), v["vaultId"], bytes.fromhex(v["blob"]))
        assert version == v["formatVersion"], v["name"]
        assert got_path == v.get("path"), v["name"]
        assert len(content) == v["size"] and hashlib.sha256(content).hexdigest() == v["contentSha256"], v["name"]
    for b in vectors["bundles"]:
        version, created_at, files, _ = decrypt_bundle(bytes.fromhex(b["vaultKey"]), b["vaultId"], bytes.fromhex(b["blob"]))
        assert (version, created_at) == (1, b["createdAtMs"]), b["name"]
        assert [p for p, _, _ in files] == [f["path"] for f in b["files"]], b["name"]
        for (_, _, content), f in zip(files, b["files"]):
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


def check_vectors_v3(vectors: dict) -> str:
    for v in vectors["blobs"]:
        got = decrypt(bytes.fromhex(v["vaultKey"]), v["vaultId"], bytes.fromhex(v["blob"]))
        assert got[:3] == (3, v["path"], v["writtenAtMs"]), v["name"]
        assert len(got[3]) == v["size"] and hashlib.sha256(got[3]).hexdigest() == v["contentSha256"], v["name"]
    manifests = {}
    for m in vectors["manifests"]:
        got = decrypt_manifest(bytes.fromhex(m["vaultKey"]), m["vaultId"], bytes.fromhex(m["blob"]))
        assert (got["sequence"], got["writtenAt"]) == (m["sequence"], m["writtenAtMs"]), m["name"]
        assert [(e["path"], e["size"], e["sha256"], e["writtenAt"]) for e in got["entries"]] == [
            (e["path"], e["size"], e["sha256"], e["writtenAtMs"]) for e in m["entries"]
        ], m["name"]
        manifests[m["name"]] = got
    for b in vectors["bundles"]:
        version, written_at, files, manifest = decrypt_bundle(bytes.fromhex(b["vaultKey"]), b["vaultId"], bytes.fromhex(b["blob"]))
        assert (version, written_at) == (2, b["writtenAtMs"]), b["name"]
        assert [(p, w) for p, w, _ in files] == [(f["path"], f["writtenAtMs"]) for f in b["files"]], b["name"]
        for (_, _, content), f in zip(files, b["files"]):
            assert len(content) == f["size"] and hashlib.sha256(content).hexdigest() == f["contentSha256"], b["name"]
        assert (manifest or {}).get("sequence") == b.get("manifestSequence"), b["name"]
    for kind, opener in (("invalidBundles", decrypt_bundle), ("invalidManifests", decrypt_manifest)):
        for b in vectors[kind]:
            try:
                opener(bytes.fromhex(b["vaultKey"]), b["vaultId"], bytes.fromhex(b["blob"]))
            except Invalid:
                continue
            raise AssertionError(f"{b['name']} was accepted")
    for c in vectors["manifestChoices"]:
        chosen = choose_manifest([manifests[name] for name in c["found"]])
        assert chosen is manifests[c["chosen"]], c["description"]
    keys = ("blobs", "bundles", "manifests", "invalidBundles", "invalidManifests", "manifestChoices")
    return "ok: " + ", ".join(f"{len(vectors[k])} {k}" for k in keys)


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
        version, created_at, files, manifest = decrypt_bundle(key, vault_id, blob)
        for path, _, content in files:  # the path rules keep every file inside DIR
            target = os.path.join(a.out, *path.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "xb") as f:
                f.write(content)
        listed = [{"path": p, "size": len(c), "sha256": hashlib.sha256(c).hexdigest(), "writtenAt": w} for p, w, c in files]
        info = {"kind": "bundle", "version": version, "createdAt": created_at, "files": listed, "manifest": manifest, "vaultId": vault_id}
        sys.stderr.write(json.dumps(info) + "\n")
        return
    if open_blob(key, vault_id, blob)[0] == "manifest":
        info = {"kind": "manifest", **decrypt_manifest(key, vault_id, blob), "vaultId": vault_id}
        sys.stderr.write(json.dumps(info) + "\n")
        return
    version, path, written_at, content = decrypt(key, vault_id, blob)
    info = {"version": version, "path": path, "writtenAt": written_at, "size": len(content), "vaultId": vault_id, "used": used, "ignored": ignored}
    sys.stderr.write(json.dumps(info) + "\n")
    sys.stdout.buffer.write(content)


if __name__ == "__main__":
    try:
        main()
    except Invalid as e:
        sys.stderr.write(f"invalid: {e}\n")
        sys.exit(1)
