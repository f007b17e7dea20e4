# Built by scripts/build-native-cipher.mjs, which finds the static libcrypto and passes it in.
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
