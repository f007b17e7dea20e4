// AES-256-GCM for the hot path, one call per chunk into the caller's buffer (src/node-cipher/aead-native.ts).
// node:crypto needs a new cipher object, a fresh output buffer and a tag buffer per 16 KiB chunk; here one
// context keeps the key schedule for a whole file and only the nonce changes, so sealing makes no garbage.
// OpenSSL's libcrypto is linked in statically with its symbols hidden: Electron does not export the
// BoringSSL it carries, and the copy inside Node must not be mixed with this one.
// Node-API only (no V8 or Node headers), so one build loads in Node and in Electron alike.
#include <limits.h>
#include <node_api.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdint.h>

#define KEY_SIZE 32
#define NONCE_SIZE 12
#define TAG_SIZE 16

typedef struct {
  EVP_CIPHER *gcm;
} Instance;

typedef struct {
  uint8_t *data;
  size_t length;
} Bytes;

static napi_value fail(napi_env env, const char *code, const char *message) {
  napi_throw_error(env, code, message);
  return NULL;
}

static bool bytes_of(napi_env env, napi_value value, Bytes *out) {
  bool is_typed = false;
  if (napi_is_typedarray(env, value, &is_typed) != napi_ok || !is_typed) return false;
  napi_typedarray_type type;
  napi_value buffer;
  size_t offset;
  void *data;
  if (napi_get_typedarray_info(env, value, &type, &out->length, &data, &buffer, &offset) != napi_ok) return false;
  if (type != napi_uint8_array) return false;
  out->data = data;
  return true;
}

static bool index_of(napi_env env, napi_value value, size_t *out) {
  double number;
  if (napi_get_value_double(env, value, &number) != napi_ok) return false;
  if (!(number >= 0 && number <= (double)INT_MAX) || number != (double)(int64_t)number) return false;
  *out = (size_t)number;
  return true;
}

static void free_context(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  EVP_CIPHER_CTX_free(data); // cleanses the key schedule
}

// context(key: Uint8Array(32)): a context that holds the expanded key.
static napi_value context(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  Instance *instance;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, (void **)&instance) != napi_ok) return NULL;
  Bytes key;
  if (argc < 1 || !bytes_of(env, argv[0], &key) || key.length != KEY_SIZE)
    return fail(env, "ERR_NATIVE_AES_GCM_KEY", "The AES-256-GCM key must be a Uint8Array of 32 bytes.");
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  if (ctx == NULL || EVP_CipherInit_ex2(ctx, instance->gcm, key.data, NULL, 1, NULL) != 1) {
    EVP_CIPHER_CTX_free(ctx);
    return fail(env, "ERR_NATIVE_AES_GCM", "OpenSSL could not set up AES-256-GCM.");
  }
  napi_value external;
  if (napi_create_external(env, ctx, free_context, NULL, &external) != napi_ok) {
    EVP_CIPHER_CTX_free(ctx);
    return NULL;
  }
  return external;
}

// The arguments both directions share: (context, nonce, input, output, outputOffset, aad?).
typedef struct {
  EVP_CIPHER_CTX *ctx;
  Bytes nonce, input, output, aad;
  size_t offset;
} Call;

static bool call_of(napi_env env, napi_callback_info info, Call *call) {
  size_t argc = 6;
  napi_value argv[6];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return false;
  napi_valuetype type;
  if (argc < 5 || napi_typeof(env, argv[0], &type) != napi_ok || type != napi_external ||
      napi_get_value_external(env, argv[0], (void **)&call->ctx) != napi_ok) {
    fail(env, "ERR_NATIVE_AES_GCM_ARGS", "Expected (context, nonce, input, output, offset[, aad]).");
    return false;
  }
  if (!bytes_of(env, argv[1], &call->nonce) || call->nonce.length != NONCE_SIZE) {
    fail(env, "ERR_NATIVE_AES_GCM_NONCE", "The nonce must be a Uint8Array of 12 bytes.");
    return false;
  }
  if (!bytes_of(env, argv[2], &call->input) || !bytes_of(env, argv[3], &call->output) ||
      !index_of(env, argv[4], &call->offset)) {
    fail(env, "ERR_NATIVE_AES_GCM_ARGS", "Input and output must be Uint8Arrays, and the offset a whole number.");
    return false;
  }
  call->aad.data = NULL;
  call->aad.length = 0;
  if (argc >= 6) {
    if (napi_typeof(env, argv[5], &type) != napi_ok) return false;
    if (type != napi_undefined && !bytes_of(env, argv[5], &call->aad)) {
      fail(env, "ERR_NATIVE_AES_GCM_ARGS", "The additional data must be a Uint8Array.");
      return false;
    }
  }
  if (call->input.length > INT_MAX - TAG_SIZE || call->aad.length > INT_MAX) {
    fail(env, "ERR_NATIVE_AES_GCM_ARGS", "The input is too large for one call.");
    return false;
  }
  return true;
}

// seal(context, nonce, plaintext, out, offset, aad?): writes ciphertext || tag at out[offset].
static napi_value seal_chunk(napi_env env, napi_callback_info info) {
  Call call;
  if (!call_of(env, info, &call)) return NULL;
  if (call.offset > call.output.length || call.output.length - call.offset < call.input.length + TAG_SIZE)
    return fail(env, "ERR_NATIVE_AES_GCM_RANGE", "The output has no room for the sealed bytes at that offset.");
  uint8_t *out = call.output.data + call.offset;
  int written = 0, tail = 0, ignored = 0;
  bool ok = EVP_CipherInit_ex2(call.ctx, NULL, NULL, call.nonce.data, 1, NULL) == 1 &&
            (call.aad.length == 0 ||
             EVP_CipherUpdate(call.ctx, NULL, &ignored, call.aad.data, (int)call.aad.length) == 1) &&
            EVP_CipherUpdate(call.ctx, out, &written, call.input.data, (int)call.input.length) == 1 &&
            EVP_CipherFinal_ex(call.ctx, out + written, &tail) == 1 && (size_t)(written + tail) == call.input.length &&
            EVP_CIPHER_CTX_ctrl(call.ctx, EVP_CTRL_AEAD_GET_TAG, TAG_SIZE, out + call.input.length) == 1;
  if (!ok) {
    OPENSSL_cleanse(out, call.input.length + TAG_SIZE);
    return fail(env, "ERR_NATIVE_AES_GCM", "OpenSSL failed to seal with AES-256-GCM.");
  }
  return NULL;
}

// open(context, nonce, sealed, out, offset, aad?): writes the plaintext at out[offset] and returns true,
// or returns false (and leaves zeros there) when ciphertext || tag does not authenticate.
static napi_value open_chunk(napi_env env, napi_callback_info info) {
  Call call;
  if (!call_of(env, info, &call)) return NULL;
  if (call.input.length < TAG_SIZE)
    return fail(env, "ERR_NATIVE_AES_GCM_ARGS", "A sealed input is at least 16 bytes (the tag).");
  size_t length = call.input.length - TAG_SIZE;
  if (call.offset > call.output.length || call.output.length - call.offset < length)
    return fail(env, "ERR_NATIVE_AES_GCM_RANGE", "The output has no room for the plaintext at that offset.");
  uint8_t *out = call.output.data + call.offset;
  int written = 0, tail = 0, ignored = 0;
  bool set_up = EVP_CipherInit_ex2(call.ctx, NULL, NULL, call.nonce.data, 0, NULL) == 1 &&
                EVP_CIPHER_CTX_ctrl(call.ctx, EVP_CTRL_AEAD_SET_TAG, TAG_SIZE, call.input.data + length) == 1 &&
                (call.aad.length == 0 ||
                 EVP_CipherUpdate(call.ctx, NULL, &ignored, call.aad.data, (int)call.aad.length) == 1) &&
                EVP_CipherUpdate(call.ctx, out, &written, call.input.data, (int)length) == 1;
  if (!set_up) {
    OPENSSL_cleanse(out, length);
    return fail(env, "ERR_NATIVE_AES_GCM", "OpenSSL failed to open with AES-256-GCM.");
  }
  // Final is where the tag is checked; until it passes, what was written is not plaintext to hand out.
  bool authentic = EVP_CipherFinal_ex(call.ctx, out + written, &tail) == 1 && (size_t)(written + tail) == length;
  if (!authentic) OPENSSL_cleanse(out, length);
  napi_value result;
  napi_get_boolean(env, authentic, &result);
  return result;
}

static void free_instance(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  Instance *instance = data;
  EVP_CIPHER_free(instance->gcm);
  OPENSSL_free(instance);
}

// Module init runs once per thread that loads the addon (the main thread, each worker).
NAPI_MODULE_INIT() {
  // No openssl.cnf: this copy must behave the same on every machine, whatever its configuration says.
  if (OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_ATEXIT, NULL) != 1) {
    napi_throw_error(env, "ERR_NATIVE_AES_GCM", "OpenSSL did not start.");
    return NULL;
  }
  Instance *instance = OPENSSL_zalloc(sizeof *instance);
  if (instance == NULL) return NULL;
  instance->gcm = EVP_CIPHER_fetch(NULL, "AES-256-GCM", NULL);
  if (instance->gcm == NULL) {
    OPENSSL_free(instance);
    napi_throw_error(env, "ERR_NATIVE_AES_GCM", "OpenSSL has no AES-256-GCM.");
    return NULL;
  }
  if (napi_set_instance_data(env, instance, free_instance, NULL) != napi_ok) {
    free_instance(env, instance, NULL);
    return NULL;
  }
  napi_property_descriptor properties[] = {
      {"context", NULL, context, NULL, NULL, NULL, napi_enumerable, instance},
      {"seal", NULL, seal_chunk, NULL, NULL, NULL, napi_enumerable, NULL},
      {"open", NULL, open_chunk, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  if (napi_define_properties(env, exports, 3, properties) != napi_ok) return NULL;
  return exports;
}
