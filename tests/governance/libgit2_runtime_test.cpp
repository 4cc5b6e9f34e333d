// libgit2 as vt-gate links it (governance/libgit2_runtime.cpp): the TLS back end's set-up is deferred
// from git_libgit2_init to its first use. A first use must still set it up and reach libgit2's own
// call: loading a CA bundle answers 0 (with the set-up skipped instead of deferred, libgit2 would
// load it into an OpenSSL context that does not exist and crash; mbedTLS's loaders are stubbed and
// answer 0 either way).
#include <git2.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "governance/git_repository.h"

namespace vt::gate {
namespace {

TEST(Libgit2Runtime, CertificateLocationsLoadAfterTheDeferredTlsSetUp) {
  const char* bundle = "/etc/ssl/certs/ca-certificates.crt";
  if (!std::filesystem::exists(bundle)) GTEST_SKIP() << bundle << " is missing (Debian's ca-certificates)";
  EnsureLibgit2();
  if ((git_libgit2_features() & GIT_FEATURE_HTTPS) == 0) GTEST_SKIP() << "libgit2 was built without HTTPS";
  ASSERT_EQ(git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, bundle, nullptr), 0)
      << (git_error_last() != nullptr ? git_error_last()->message : "no libgit2 error");
}

}  // namespace
}  // namespace vt::gate
