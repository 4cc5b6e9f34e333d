#include "engine/config/quantization_config.h"

#include <nlohmann/json.hpp>

#include "kernels/w4a16/gptq_layout.h"

namespace vt {

namespace {

using nlohmann::json;

constexpr const char* kWhere = "config.json: quantization_config";

Status ReadInt(const json& q, const char* key, int* out) {
  auto it = q.find(key);
  if (it == q.end() || it->is_null()) return Status::Ok();
  if (!it->is_number_integer() || it->get<int64_t>() < -(1 << 20) || it->get<int64_t>() > (1 << 20)) {
    return InvalidArgument(std::string(kWhere) + "." + key + " must be a small integer");
  }
  *out = static_cast<int>(it->get<int64_t>());
  return Status::Ok();
}

Status ReadBool(const json& q, const char* key, bool* out) {
  auto it = q.find(key);
  if (it == q.end() || it->is_null()) return Status::Ok();
  if (!it->is_boolean()) return InvalidArgument(std::string(kWhere) + "." + key + " must be true or false");
  *out = it->get<bool>();
  return Status::Ok();
}

// The supported GPTQ variants are exactly what the W4A16 kernel accepts; K is not known from
// config.json, so only group 128 and -1 pass here (the per-tensor load checks group == K).
Status CheckSupported(const GptqConfig& g) {
  Status s = kernels::CheckGptqVariant(g.bits, g.group_size, g.sym, g.desc_act, /*k=*/128);
  if (!s.ok()) return Status(s.code(), std::string(kWhere) + ": " + s.message());
  return Status::Ok();
}

}  // namespace

Result<std::optional<GptqConfig>> ParseQuantizationConfig(const json& config) {
  auto it = config.find("quantization_config");
  if (it == config.end() || it->is_null()) return std::optional<GptqConfig>();
  const json& q = *it;
  if (!q.is_object()) return InvalidArgument(std::string(kWhere) + " must be an object");
  auto method = q.find("quant_method");
  if (method == q.end() || !method->is_string()) {
    return InvalidArgument(std::string(kWhere) + ": missing or non-string 'quant_method'");
  }
  if (*method != "gptq") {
    return Unimplemented(std::string(kWhere) + ".quant_method '" + method->get<std::string>() +
                         "' is not supported (gptq is)");
  }
  if (!q.contains("bits")) return InvalidArgument(std::string(kWhere) + ": missing 'bits'");
  GptqConfig g;
  VT_RETURN_IF_ERROR(ReadInt(q, "bits", &g.bits));
  VT_RETURN_IF_ERROR(ReadInt(q, "group_size", &g.group_size));
  VT_RETURN_IF_ERROR(ReadBool(q, "sym", &g.sym));
  VT_RETURN_IF_ERROR(ReadBool(q, "desc_act", &g.desc_act));
  VT_RETURN_IF_ERROR(CheckSupported(g));
  return std::optional<GptqConfig>(g);
}

}  // namespace vt
