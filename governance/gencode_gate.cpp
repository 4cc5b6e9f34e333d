#include "governance/gencode_gate.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "governance/features_table.h"
#include "governance/nvcc_flags.h"

namespace vt::gate {
namespace {

namespace fs = std::filesystem;
constexpr const char* kGate = "gencode";

std::string Absolute(const std::string& root, const std::string& path) {
  return fs::path(path).is_absolute() ? path : root + path;
}

// Repository-relative when `path` lies in the work tree, else as given.
std::string RelativeTo(const std::string& root, const fs::path& path) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(path, ec);
  fs::path base = fs::weakly_canonical(fs::path(root), ec);
  std::string relative = canonical.lexically_relative(base).generic_string();
  return relative.empty() || relative.rfind("..", 0) == 0 ? path.generic_string() : relative;
}

std::string Join(const std::set<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : " ") + item;
  return out;
}

std::string SmOf(const std::string& pair) { return pair.substr(pair.find(",code=") + 6); }

struct CudaUnit {
  std::string source;  // repository-relative
  std::vector<std::string> arguments;
  std::string object;  // file name of the -o output, e.g. "decode_gqa.cu.o"
};

std::string ObjectName(const std::vector<std::string>& args) {
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "-o") return fs::path(args[i + 1]).filename().string();
  }
  return "";
}

Result<std::vector<CudaUnit>> ReadCompileCommands(const std::string& root, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Unavailable(path + " not found: configure a CUDA build to get it");
  nlohmann::json db = nlohmann::json::parse(in, nullptr, false);
  if (db.is_discarded() || !db.is_array()) return InvalidArgument(path + ": not a JSON compile database");
  std::vector<CudaUnit> units;
  for (const nlohmann::json& entry : db) {
    if (!entry.is_object() || !entry.contains("file") || !entry["file"].is_string()) continue;
    std::string file = entry["file"];
    if (fs::path(file).extension() != ".cu") continue;
    std::string directory = entry.value("directory", std::string());
    fs::path source = fs::path(file).is_absolute() ? fs::path(file) : fs::path(directory) / file;
    CudaUnit unit{RelativeTo(root, source), {}, ""};
    if (entry.contains("arguments") && entry["arguments"].is_array()) {
      for (const nlohmann::json& a : entry["arguments"]) {
        if (a.is_string()) unit.arguments.push_back(a);
      }
    } else if (entry.contains("command") && entry["command"].is_string()) {
      unit.arguments = SplitCommand(entry["command"]);
    }
    unit.object = ObjectName(unit.arguments);
    units.push_back(std::move(unit));
  }
  return units;
}

// SM targets named by `cuobjdump --list-elf` lines such as "ELF file    1: x.1.sm_90.cubin",
// per archive member ("member /path/libk.a:a.cu.o:") when the input is a static library.
struct EmbeddedArchs {
  struct Member {
    std::set<std::string> sms;
    int line = 0;
  };
  std::set<std::string> sms;
  std::map<std::string, Member> members;  // object file name -> its cubins
  int first_line = 0;
};

Result<EmbeddedArchs> ReadCuobjdumpList(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Unavailable(path + ": cannot read the cuobjdump list");
  EmbeddedArchs out;
  std::string line;
  int number = 0;
  std::string member;
  while (std::getline(in, line)) {
    ++number;
    if (line.rfind("member ", 0) == 0 && line.size() > 8 && line.back() == ':') {
      std::string path = line.substr(7, line.size() - 8);
      member = fs::path(path.substr(path.rfind(':') == std::string::npos ? 0 : path.rfind(':') + 1))
                   .filename()
                   .string();
      out.members[member].line = number;
      continue;
    }
    size_t cubin = line.rfind(".cubin");
    size_t sm = cubin == std::string::npos ? std::string::npos : line.rfind(".sm_", cubin);
    if (line.find("ELF file") == std::string::npos || sm == std::string::npos) continue;
    std::string arch = line.substr(sm + 1, cubin - sm - 1);
    out.sms.insert(arch);
    if (!member.empty()) out.members[member].sms.insert(arch);
    if (!out.first_line) out.first_line = number;
  }
  return out;
}

}  // namespace

GateReport CheckGencode(const GencodeConfig& config, const GencodeInput& input) {
  auto start = std::chrono::steady_clock::now();
  GateReport report;
  report.gate = kGate;
  auto finish = [&](GateStatus status, std::string reason) {
    if (!report.findings.empty()) status = GateStatus::kFail;
    report.status = status;
    report.reason =
        report.findings.empty() ? reason : Counted(report.findings.size(), "finding") + " (" + reason + ")";
    report.elapsed_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return report;
  };
  std::string features_path = Absolute(input.root, config.features);
  Result<FeatureTable> table = LoadFeatureTable(features_path);
  if (!table.ok()) return finish(GateStatus::kFail, table.status().message());
  std::string features_file = config.features;
  std::string sources_root = config.sources_root.empty()
                                 ? fs::path(config.features).parent_path().generic_string()
                                 : config.sources_root;
  if (!sources_root.empty() && sources_root.back() != '/') sources_root += '/';

  std::string db_path =
      Absolute(input.root, input.compile_commands.empty() ? config.compile_commands : input.compile_commands);
  Result<std::vector<CudaUnit>> units = ReadCompileCommands(input.root, db_path);
  if (!units.ok()) {
    return finish(units.status().code() == StatusCode::kUnavailable ? GateStatus::kSkip : GateStatus::kFail,
                  units.status().message());
  }
  if (units->empty()) {
    return finish(GateStatus::kSkip,
                  db_path + " has no CUDA sources: a build without CUDA cannot be audited");
  }
  std::set<std::string> compiled;
  std::set<std::string> requested_sms;
  std::map<std::string, std::pair<std::string, std::set<std::string>>>
      requested_by_object;  // object -> source, SMs
  for (const CudaUnit& unit : units.value()) {
    ++report.checked;
    if (unit.source.rfind(sources_root, 0) != 0) {
      report.findings.push_back({"gencode-unmapped", "", features_file, table->sources_line,
                                 unit.source + " is a CUDA source outside " + sources_root +
                                     ", so no glob decides its architectures"});
      continue;
    }
    std::string relative = unit.source.substr(sources_root.size());
    compiled.insert(relative);
    const FeatureTable::SourceGlob* glob = table->Match(relative);
    if (!glob) {
      report.findings.push_back(
          {"gencode-unmapped", "", features_file, table->sources_line, relative + " matches no source glob"});
      continue;
    }
    std::set<std::string> expected;
    for (const std::string& arch : table->features.at(glob->feature).archs) {
      expected.insert(GencodePair(arch));
      requested_sms.insert("sm_" + arch);
      if (!unit.object.empty()) {
        requested_by_object[unit.object].first = relative;
        requested_by_object[unit.object].second.insert("sm_" + arch);
      }
    }
    NvccTargets actual = ParseNvccTargets(unit.arguments);
    for (const std::string& flag : actual.unknown) {
      report.findings.push_back({"gencode-unknown", "", features_file, glob->line,
                                 relative + ": `" + flag + "` names no fixed architecture set"});
    }
    std::set<std::string> missing, extra;
    for (const std::string& pair : expected) {
      if (!actual.pairs.count(pair)) missing.insert(SmOf(pair));
    }
    for (const std::string& pair : actual.pairs) {
      if (!expected.count(pair)) extra.insert(pair);
    }
    if (!missing.empty()) {
      report.findings.push_back({"gencode-missing", "", features_file, glob->line,
                                 relative + " (feature " + glob->feature + ") is not compiled for " +
                                     Join(missing) + ": a silent capability drop"});
    }
    if (!extra.empty()) {
      report.findings.push_back({"gencode-extra", "", features_file, glob->line,
                                 relative + " (feature " + glob->feature + ") is also compiled for " +
                                     Join(extra) + ", which the table does not request"});
    }
  }
  for (const FeatureTable::RequiredSource& required : table->required) {
    if (!compiled.count(required.path)) {
      report.findings.push_back({"gencode-required", "", features_file, required.line,
                                 "required source " + required.path + " is not in " + db_path});
    }
  }
  std::string scope = Counted(report.checked, "CUDA source") + " in " + RelativeTo(input.root, db_path);
  std::string list = input.cuobjdump_list.empty() ? config.cuobjdump_list : input.cuobjdump_list;
  if (!list.empty()) {
    std::string list_path = Absolute(input.root, list);
    Result<EmbeddedArchs> embedded = ReadCuobjdumpList(list_path);
    if (!embedded.ok()) return finish(GateStatus::kSkip, embedded.status().message());
    std::set<std::string> missing, extra;
    for (const std::string& sm : requested_sms) {
      if (!embedded->sms.count(sm)) missing.insert(sm);
    }
    for (const std::string& sm : embedded->sms) {
      if (!requested_sms.count(sm)) extra.insert(sm);
    }
    // Per member: a unit that lost an architecture another unit still has is a drop the union hides.
    for (const auto& [object, member] : embedded->members) {
      auto requested = requested_by_object.find(object);
      if (requested == requested_by_object.end() || member.sms == requested->second.second) continue;
      report.findings.push_back({"gencode-embedded", "", list, member.line,
                                 requested->second.first + " (" + object + ") embeds {" + Join(member.sms) +
                                     "} but the table requests {" + Join(requested->second.second) + "}"});
    }
    if (!missing.empty() || !extra.empty()) {
      report.findings.push_back({"gencode-embedded", "", list, embedded->first_line,
                                 "the library embeds {" + Join(embedded->sms) + "} but the table requests {" +
                                     Join(requested_sms) + "}" +
                                     (missing.empty() ? "" : "; missing " + Join(missing))});
    }
    scope += ", embedded " + Join(embedded->sms);
  }
  return finish(GateStatus::kOk, scope);
}

}  // namespace vt::gate
