// libFuzzer target: arbitrary bytes as a YAML file for governance/yaml_document.h, the reader of
// vt-gate's config and the CUDA feature table. Beyond not crashing: an error names the file and a
// line, and a tree that parses keeps the bounds (nesting depth, node count) and unique keys.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "governance/yaml_document.h"

namespace {

size_t Check(const vt::gate::YamlNode& node, int depth) {
  bool collection = node.IsMap() || node.IsSequence();
  if (collection && depth >= vt::gate::kMaxYamlDepth) std::abort();
  size_t nodes = 1;
  std::set<std::string> keys;
  for (const vt::gate::YamlEntry& entry : node.entries) {
    if (!entry.key.IsScalar() || !keys.insert(entry.key.scalar).second) std::abort();
    nodes += Check(entry.key, depth + 1) + Check(entry.value, depth + 1);
  }
  for (const vt::gate::YamlNode& item : node.items) nodes += Check(item, depth + 1);
  if (node.line < 1) std::abort();
  return nodes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  vt::Result<vt::gate::YamlNode> doc = vt::gate::ParseYaml(text, "fuzz.yaml");
  if (!doc.ok()) {
    const std::string& message = doc.status().message();
    size_t digits = message.find_first_not_of("0123456789", 10);
    if (message.rfind("fuzz.yaml:", 0) != 0 || digits == 10 || message.compare(digits, 2, ": ") != 0) std::abort();
    return 0;
  }
  if (Check(doc.value(), 0) > vt::gate::kMaxYamlNodes) std::abort();
  return 0;
}
