#include "governance/features_table.h"

#include <cctype>

#include "governance/path_glob.h"
#include "governance/yaml_document.h"

namespace vt::gate {
namespace {

bool IsArch(const std::string& s) {
  size_t digits = 0;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
  return digits > 0 && (digits == s.size() ||
                        (digits + 1 == s.size() && std::islower(static_cast<unsigned char>(s.back()))));
}

}  // namespace

const FeatureTable::SourceGlob* FeatureTable::Match(const std::string& relative) const {
  for (const SourceGlob& source : sources) {
    if (GlobMatch(source.glob, relative)) return &source;
  }
  return nullptr;
}

Result<FeatureTable> LoadFeatureTable(const std::string& path) {
  auto error = [&](int line, const std::string& message) {
    return InvalidArgument(path + ":" + std::to_string(line) + ": " + message);
  };
  Result<YamlNode> document = LoadYamlFile(path, "the feature table");
  if (!document.ok()) return document.status();
  const YamlNode& root = document.value();
  const YamlNode* features = root.Find("features");
  const YamlNode* sources = root.Find("sources");
  if (!features || !sources) return error(1, "needs `features` and `sources`");
  FeatureTable table;
  if (!features->IsMap()) return error(features->line, "`features` must map names to SM lists");
  for (const YamlEntry& entry : features->entries) {
    FeatureTable::Feature feature;
    feature.line = entry.key.line;
    if (!entry.value.IsSequence() || entry.value.items.empty()) {
      return error(feature.line, "feature `" + entry.key.scalar + "` needs a non-empty list of SM numbers");
    }
    for (const YamlNode& arch : entry.value.items) {
      if (!arch.IsScalar() || !IsArch(arch.scalar)) return error(arch.line, "`" + arch.scalar + "` is not an SM number");
      feature.archs.push_back(arch.scalar);
    }
    table.features[entry.key.scalar] = feature;
  }
  for (const YamlEntry& entry : root.entries) {
    if (entry.key.scalar == "sources") table.sources_line = entry.key.line;
  }
  if (!sources->IsMap()) return error(sources->line, "`sources` must map globs to features");
  for (const YamlEntry& entry : sources->entries) {
    FeatureTable::SourceGlob source{entry.key.scalar, entry.value.scalar, entry.key.line};
    if (!entry.value.IsScalar() || !table.features.count(source.feature)) {
      return error(source.line, "`" + source.glob + "` maps to unknown feature `" + source.feature + "`");
    }
    table.sources.push_back(source);
  }
  if (const YamlNode* required = root.Find("required")) {
    if (!required->IsSequence()) return error(required->line, "`required` must be a list of paths");
    for (const YamlNode& item : required->items) {
      if (!item.IsScalar()) return error(item.line, "`required` entries must be paths");
      table.required.push_back({item.scalar, item.line});
    }
  }
  return table;
}

}  // namespace vt::gate
