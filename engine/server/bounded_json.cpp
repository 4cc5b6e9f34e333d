#include "engine/server/bounded_json.h"

#include <string>

namespace vt::server {
namespace {

// nlohmann's own DOM builder behind a depth count. Returning false from an event ends parsing
// at once, before the tree under construction is any deeper than the limit.
template <typename json>
class DepthLimitedSax {
 public:
  DepthLimitedSax(json* out, int max_depth) : dom_(*out, /*allow_exceptions=*/false), max_depth_(max_depth) {}

  bool too_deep() const { return too_deep_; }
  const std::string& error() const { return error_; }

  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(typename json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(typename json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(typename json::number_float_t v, const typename json::string_t& s) {
    return dom_.number_float(v, s);
  }
  bool string(typename json::string_t& v) { return dom_.string(v); }
  bool binary(typename json::binary_t& v) { return dom_.binary(v); }
  bool key(typename json::string_t& v) { return dom_.key(v); }
  bool start_object(std::size_t n) { return Enter() && dom_.start_object(n); }
  bool start_array(std::size_t n) { return Enter() && dom_.start_array(n); }
  bool end_object() {
    --depth_;
    return dom_.end_object();
  }
  bool end_array() {
    --depth_;
    return dom_.end_array();
  }
  bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& e) {
    error_ = e.what();
    return dom_.parse_error(position, token, e);
  }

 private:
  bool Enter() {
    if (++depth_ <= max_depth_) return true;
    too_deep_ = true;
    return false;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  const int max_depth_;
  int depth_ = 0;
  bool too_deep_ = false;
  std::string error_;
};

template <typename json>
Result<json> Parse(std::string_view text, int max_depth) {
  json out;
  DepthLimitedSax<json> sax(&out, max_depth);
  if (json::sax_parse(text, &sax, json::input_format_t::json, /*strict=*/true)) return out;
  if (sax.too_deep()) {
    return InvalidArgument("nests deeper than " + std::to_string(max_depth) +
                           " levels of arrays and objects (the limit)");
  }
  return InvalidArgument("is not valid JSON: " + sax.error());
}

}  // namespace

Result<nlohmann::json> ParseBoundedJson(std::string_view text, int max_depth) {
  return Parse<nlohmann::json>(text, max_depth);
}

Result<nlohmann::ordered_json> ParseBoundedOrderedJson(std::string_view text, int max_depth) {
  return Parse<nlohmann::ordered_json>(text, max_depth);
}

}  // namespace vt::server
