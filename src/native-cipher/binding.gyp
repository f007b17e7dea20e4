# Built by scripts/build-native-cipher.mjs, which finds the static libcrypto and passes it in.
# node-gyp puts Node's own headers first, and they carry OpenSSL 3.0 headers: the module compiles against
# those and links the system's OpenSSL 3.0.x libcrypto.a, which OpenSSL keeps ABI-compatible within 3.x.
{
  "targets": [
    {
      "target_name": "aes_gcm",
      "sources": ["aes-gcm.c"],
      "cflags": ["-O2", "-fvisibility=hidden", "-Wall", "-Wextra", "-Werror"],
      "libraries": ["<(libcrypto)", "-Wl,--exclude-libs,ALL", "-Wl,-Bsymbolic", "-Wl,-z,noexecstack"]
    }
  ]
}
