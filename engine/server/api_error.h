// Errors in OpenAI's shape: {"error": {"message", "type", "param", "code"}} with an HTTP status.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace vt::server {

struct ApiError {
  int http_status = 400;
  std::string message;
  std::string type = "BadRequestError";
  std::string param;  // the offending request field, empty when none
  std::string code;

  nlohmann::json ToJson() const {
    return {{"error",
             {{"message", message},
              {"type", type},
              {"param", param.empty() ? nlohmann::json(nullptr) : nlohmann::json(param)},
              {"code", code.empty() ? nlohmann::json(http_status) : nlohmann::json(code)}}}};
  }
};

inline ApiError BadRequest(std::string message, std::string param = "") {
  return {400, std::move(message), "BadRequestError", std::move(param), ""};
}

}  // namespace vt::server
