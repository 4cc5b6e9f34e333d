#include "governance/features_table.h"

#include <yaml-cpp/yaml.h>

#include <cctype>

#include "governance/path_glob.h"

namespace vt::gate {
namespace {

bool IsArch(const std::string& s) {
  size_t digits = 0;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
  return digits > 0 && (digits == s.size() ||
                        (digits + 1 == s.size() && std::islower(static_cast<unsigned char>(s.back()))));
}

int LineOf(const YAML::Node& node) { return node.Mark().line + 1; }

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
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    return NotFound(path + ": cannot read the feature table");
  } catch (const YAML::Exception& e) {
    return error(e.mark.line + 1, e.msg);
  }
  if (!root.IsMap() || !root["features"] || !root["sources"])
    return error(1, "needs `features` and `sources`");
  FeatureTable table;
  const YAML::Node features = root["features"];
  if (!features.IsMap()) return error(LineOf(features), "`features` must map names to SM lists");
  for (auto it = features.begin(); it != features.end(); ++it) {
    FeatureTable::Feature feature;
    feature.line = LineOf(it->first);
    if (!it->second.IsSequence() || it->second.size() == 0) {
      return error(feature.line, "feature `" + it->first.Scalar() + "` needs a non-empty list of SM numbers");
    }
    for (const YAML::Node& arch : it->second) {
      if (!arch.IsScalar() || !IsArch(arch.Scalar()))
        return error(LineOf(arch), "`" + arch.Scalar() + "` is not an SM number");
      feature.archs.push_back(arch.Scalar());
    }
    table.features[it->first.Scalar()] = feature;
  }
  const YAML::Node sources = root["sources"];
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (it->first.Scalar() == "sources") table.sources_line = LineOf(it->first);
  }
  if (!sources.IsMap()) return error(LineOf(sources), "`sources` must map globs to features");
  for (auto it = sources.begin(); it != sources.end(); ++it) {
    FeatureTable::SourceGlob source{it->first.Scalar(), it->second.Scalar(), LineOf(it->first)};
    if (!table.features.count(source.feature)) {
      return error(source.line, "`" + source.glob + "` maps to unknown feature `" + source.feature + "`");
    }
    table.sources.push_back(source);
  }
  if (const YAML::Node required = root["required"]) {
    if (!required.IsSequence()) return error(LineOf(required), "`required` must be a list of paths");
    for (const YAML::Node& item : required) table.required.push_back({item.Scalar(), LineOf(item)});
  }
  return table;
}

}  // namespace vt::gate
