// libgit2 as vt-gate runs it: linked statically (governance/CMakeLists.txt)
// and offline. The commit-msg hook has a 10 ms budget (issue #20), and
// git_libgit2_init starts every transport libgit2 was built with although
// vt-gate only reads local repositories. The link wraps libgit2's start-up calls
// (-Wl,--wrap) and the definitions below take their place; each keeps a
// network use failing closed or initialising late instead of running now.
#include <git2.h>

#include <mutex>

#include "governance/git_repository.h"

namespace vt::gate {

void EnsureLibgit2() {
  static std::once_flag once;
  std::call_once(once, [] {
    git_libgit2_init();
    // libgit2 re-hashes every object it reads; git itself leaves that to fsck.
    // The gates only read, and the re-hash is a sixth of a range check.
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
    // The gates read each commit once (governance/limited_walk.cpp): a commit
    // kept in libgit2's object cache is only stored, locked and freed again at
    // exit (7% of a `trailers --range`). Trees and tags stay cached.
    git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_COMMIT, static_cast<size_t>(0));
  });
}

}  // namespace vt::gate

extern "C" {

// git_libgit2_init sets up libgit2's TLS back end for HTTPS, for streams vt-gate
// never opens: mbedTLS (Debian 12's libgit2) seeds entropy (HAVEGE) and a DRBG,
// a third of the commit-msg hook's instructions; OpenSSL (Ubuntu 24.04's and
// most others') loads its configuration and the CA bundle: a commit-msg hook
// run took 30.8 ms with it and 6.0 ms with it deferred (perf stat, libgit2
// 1.7.2 built as Ubuntu builds it). The set-up waits for the first TLS stream (or
// certificate location) instead, and runs then exactly as libgit2 would have
// run it. governance/CMakeLists.txt wraps these four calls of the back end the
// libgit2 archive was built with.
#define VT_DEFER_TLS_SET_UP(backend)                                                                 \
  int __real_git_##backend##_stream_global_init();                                                   \
  int __real_git_##backend##_stream_new(void** out, const char* host, const char* port);              \
  int __real_git_##backend##_stream_wrap(void** out, void* in, const char* host);                     \
  int __real_git_##backend##__set_cert_location(const char* file, const char* path);                  \
  static int TlsReady() {                                                                            \
    static const int rc = __real_git_##backend##_stream_global_init();                               \
    return rc;                                                                                       \
  }                                                                                                  \
  int __wrap_git_##backend##_stream_global_init() { return 0; }                                      \
  int __wrap_git_##backend##_stream_new(void** out, const char* host, const char* port) {             \
    int rc = TlsReady();                                                                             \
    return rc < 0 ? rc : __real_git_##backend##_stream_new(out, host, port);                         \
  }                                                                                                  \
  int __wrap_git_##backend##_stream_wrap(void** out, void* in, const char* host) {                    \
    int rc = TlsReady();                                                                             \
    return rc < 0 ? rc : __real_git_##backend##_stream_wrap(out, in, host);                          \
  }                                                                                                  \
  int __wrap_git_##backend##__set_cert_location(const char* file, const char* path) {                 \
    int rc = TlsReady();                                                                             \
    return rc < 0 ? rc : __real_git_##backend##__set_cert_location(file, path);                      \
  }

#if defined(VT_LIBGIT2_TLS_MBEDTLS)
VT_DEFER_TLS_SET_UP(mbedtls)
// mbedTLS's certificate loaders, called by libgit2's TLS set-up to parse the
// 220 KB CA bundle (6 ms). With no certificate loaded no server verifies:
// an HTTPS use would fail closed, nothing is trusted by mistake.
int __wrap_mbedtls_x509_crt_parse_file(void* /*chain*/, const char* /*path*/) { return 0; }
int __wrap_mbedtls_x509_crt_parse_path(void* /*chain*/, const char* /*path*/) { return 0; }
#elif defined(VT_LIBGIT2_TLS_OPENSSL)
VT_DEFER_TLS_SET_UP(openssl)
#endif

// libgit2's SSH set-up calls libssh2_init, which starts OpenSSL (engines,
// error strings: 0.6 ms). libssh2 calls its own libssh2_init (not wrapped:
// same object file) when a session is first made, so SSH still works.
int __wrap_libssh2_init(int /*flags*/) { return 0; }

// Debian and Ubuntu build libgit2 with GSSAPI (HTTP Negotiate) but ship no static
// libgssapi_krb5; loading the shared one costs seven more libraries. These
// stand in: every call fails (GSS_S_FAILURE), so Negotiate is never offered.
constexpr unsigned kGssFailure = 13u << 16;
void* GSS_C_NT_HOSTBASED_SERVICE = nullptr;
unsigned gss_delete_sec_context() { return kGssFailure; }
unsigned gss_display_status() { return kGssFailure; }
unsigned gss_import_name() { return kGssFailure; }
unsigned gss_indicate_mechs() { return kGssFailure; }
unsigned gss_init_sec_context() { return kGssFailure; }
unsigned gss_release_buffer() { return kGssFailure; }
unsigned gss_release_name() { return kGssFailure; }
unsigned gss_release_oid_set() { return kGssFailure; }

}  // extern "C"
