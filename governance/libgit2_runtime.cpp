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

// mbedTLS's certificate loaders, called by libgit2's TLS set-up to parse the
// 220 KB CA bundle (6 ms). With no certificate loaded no server verifies:
// an HTTPS use would fail closed, nothing is trusted by mistake.
int __wrap_mbedtls_x509_crt_parse_file(void* /*chain*/, const char* /*path*/) { return 0; }
int __wrap_mbedtls_x509_crt_parse_path(void* /*chain*/, const char* /*path*/) { return 0; }

// git_libgit2_init sets up mbedTLS for HTTPS: entropy seeding (HAVEGE) and a
// DRBG, a third of the commit-msg hook's instructions, for streams vt-gate
// never opens. The set-up waits for the first TLS stream (or certificate
// location) instead, and runs then exactly as libgit2 would have run it.
int __real_git_mbedtls_stream_global_init();
int __real_git_mbedtls_stream_new(void** out, const char* host, const char* port);
int __real_git_mbedtls_stream_wrap(void** out, void* in, const char* host);
int __real_git_mbedtls__set_cert_location(const char* file, const char* path);

static int MbedtlsReady() {
  static const int rc = __real_git_mbedtls_stream_global_init();
  return rc;
}
int __wrap_git_mbedtls_stream_global_init() { return 0; }
int __wrap_git_mbedtls_stream_new(void** out, const char* host, const char* port) {
  int rc = MbedtlsReady();
  return rc < 0 ? rc : __real_git_mbedtls_stream_new(out, host, port);
}
int __wrap_git_mbedtls_stream_wrap(void** out, void* in, const char* host) {
  int rc = MbedtlsReady();
  return rc < 0 ? rc : __real_git_mbedtls_stream_wrap(out, in, host);
}
int __wrap_git_mbedtls__set_cert_location(const char* file, const char* path) {
  int rc = MbedtlsReady();
  return rc < 0 ? rc : __real_git_mbedtls__set_cert_location(file, path);
}

// libgit2's SSH set-up calls libssh2_init, which starts OpenSSL (engines,
// error strings: 0.6 ms). libssh2 calls its own libssh2_init (not wrapped:
// same object file) when a session is first made, so SSH still works.
int __wrap_libssh2_init(int /*flags*/) { return 0; }

// Debian builds libgit2 with GSSAPI (HTTP Negotiate) but ships no static
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
