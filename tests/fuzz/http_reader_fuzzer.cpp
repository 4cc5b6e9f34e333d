// libFuzzer target: arbitrary bytes as what a client sends on one connection, cut into requests by
// the server's HttpRequestReader, fed in pieces whose sizes come from the input (so a header or a
// chunk split anywhere is tried). Beyond not crashing: a request's body never exceeds the limit,
// and once the reader has answered with an error it parses nothing more.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "engine/server/http_request_reader.h"

namespace {

constexpr size_t kMaxHeader = 1024;
constexpr size_t kMaxBody = 4096;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte sets the piece size (1..256), the rest is the connection's bytes.
  const size_t piece = static_cast<size_t>(data[0]) + 1;
  const char* bytes = reinterpret_cast<const char*>(data + 1);
  const size_t n = size - 1;
  vt::server::HttpRequestReader reader(kMaxHeader, kMaxBody);
  for (size_t at = 0; at < n; at += piece) {
    const size_t len = at + piece <= n ? piece : n - at;
    reader.Append(bytes + at, len);
    reader.TakeContinue();
    while (std::optional<vt::server::ParsedRequest> r = reader.Next()) {
      if (r->request.body.size() > kMaxBody) std::abort();
      if (reader.error()) std::abort();
    }
    if (reader.error() && reader.Next()) std::abort();
    (void)reader.phase();
  }
  return 0;
}
