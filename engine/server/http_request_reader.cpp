#include "engine/server/http_request_reader.h"

#include <cstdint>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>

namespace vt::server {

namespace beast = boost::beast;
namespace http = beast::http;

HttpRequestReader::HttpRequestReader(size_t max_header_bytes, size_t max_body_bytes)
    : max_header_bytes_(max_header_bytes), max_body_bytes_(max_body_bytes) {
  Reset();
}

void HttpRequestReader::Reset() {
  parser_.emplace();
  parser_->header_limit(static_cast<uint32_t>(max_header_bytes_));
  parser_->body_limit(max_body_bytes_);
  parser_->eager(true);  // one put() takes the body too, not only the header
  continue_asked_ = false;
}

void HttpRequestReader::Append(const char* data, size_t n) {
  const size_t copied = boost::asio::buffer_copy(buffer_.prepare(n), boost::asio::buffer(data, n));
  buffer_.commit(copied);
}

std::optional<ParsedRequest> HttpRequestReader::Next() {
  while (!error_ && buffer_.size() > 0 && !parser_->is_done()) {
    beast::error_code ec;
    const size_t used = parser_->put(buffer_.data(), ec);
    buffer_.consume(used);
    if (ec == http::error::need_more) break;
    if (ec == http::error::body_limit) {
      error_ = {400, "the request body is over the size limit of " + std::to_string(max_body_bytes_) + " bytes"};
    } else if (ec == http::error::header_limit) {
      error_ = {431, "the request header is over the size limit of " + std::to_string(max_header_bytes_) + " bytes"};
    } else if (ec) {
      error_ = {400, "the request is not valid HTTP/1.1 (request line, headers or body framing): " + ec.message()};
    } else if (used == 0) {
      break;
    }
  }
  if (error_ || !parser_->is_done()) return std::nullopt;
  http::request<http::string_body> req = parser_->release();
  Reset();
  ParsedRequest out;
  out.keep_alive = req.keep_alive();
  HttpRequest& r = out.request;
  r.method = std::string(req.method_string());
  const beast::string_view target = req.target();
  r.path = std::string(target.substr(0, target.find('?')));
  r.http10 = req.version() == 10;
  if (const auto auth = req.find(http::field::authorization); auth != req.end()) r.authorization = std::string(auth->value());
  r.body = std::move(req.body());
  return out;
}

HttpRequestReader::Phase HttpRequestReader::phase() const {
  if (parser_->is_header_done()) return Phase::kBody;
  return buffer_.size() > 0 || parser_->got_some() ? Phase::kHeader : Phase::kIdle;
}

bool HttpRequestReader::TakeContinue() {
  if (continue_asked_ || error_ || !parser_->is_header_done() || parser_->is_done()) return false;
  const auto& h = parser_->get();
  const auto expect = h.find(http::field::expect);
  if (expect == h.end() || !beast::iequals(expect->value(), "100-continue")) return false;
  continue_asked_ = true;
  return true;
}

}  // namespace vt::server
