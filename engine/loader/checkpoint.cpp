#include "engine/loader/checkpoint.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "engine/loader/safetensors.h"

namespace vt {

namespace {

using nlohmann::json;

Result<std::shared_ptr<TensorStore>> OpenSharded(const std::string& dir, const std::string& index_path) {
  std::ifstream in(index_path);
  std::stringstream text;
  text << in.rdbuf();
  json index = json::parse(text.str(), nullptr, false);
  if (index.is_discarded() || !index.is_object() || !index.contains("weight_map") ||
      !index["weight_map"].is_object()) {
    return DataLoss(index_path + ": no 'weight_map' object");
  }
  std::set<std::string> shards;
  for (auto it = index["weight_map"].begin(); it != index["weight_map"].end(); ++it) {
    if (!it.value().is_string()) return DataLoss(index_path + ": tensor '" + it.key() + "' maps to a non-string");
    const std::string shard = it.value().get<std::string>();
    // The index is untrusted too: a shard must be a plain file name in the directory.
    if (shard.empty() || shard.find('/') != std::string::npos || shard == "." || shard == "..") {
      return DataLoss(index_path + ": tensor '" + it.key() + "' maps to an invalid file name '" + shard + "'");
    }
    shards.insert(shard);
  }
  auto store = std::make_shared<TensorStore>();
  for (const std::string& shard : shards) VT_RETURN_IF_ERROR(AddSafetensorsFile(dir + "/" + shard, store.get()));
  for (auto it = index["weight_map"].begin(); it != index["weight_map"].end(); ++it) {
    const TensorInfo* t = store->Find(it.key());
    if (t == nullptr || t->file != dir + "/" + it.value().get<std::string>()) {
      return DataLoss(index_path + ": tensor '" + it.key() + "' is not in " + it.value().get<std::string>());
    }
  }
  return store;
}

}  // namespace

Result<std::shared_ptr<TensorStore>> OpenCheckpoint(const std::string& model_dir) {
  const std::string index = model_dir + "/model.safetensors.index.json";
  if (std::filesystem::exists(index)) return OpenSharded(model_dir, index);
  const std::string single = model_dir + "/model.safetensors";
  if (!std::filesystem::exists(single)) {
    return NotFound(model_dir + ": no model.safetensors or model.safetensors.index.json");
  }
  auto store = std::make_shared<TensorStore>();
  VT_RETURN_IF_ERROR(AddSafetensorsFile(single, store.get()));
  return store;
}

}  // namespace vt
