#include "governance/nvcc_flags.h"

namespace vt::gate {
namespace {

std::string StripQuotesAndBrackets(std::string s) {
  std::string out;
  for (char c : s) {
    if (c != '"' && c != '\'' && c != '[' && c != ']') out += c;
  }
  return out;
}

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// "arch=compute_80,code=[sm_80,compute_80]"
void AddGencode(const std::string& value, NvccTargets& out) {
  std::string spec = StripQuotesAndBrackets(value);
  size_t code = spec.find(",code=");
  if (spec.rfind("arch=", 0) != 0 || code == std::string::npos) {
    out.unknown.push_back("-gencode " + value);
    return;
  }
  std::string arch = spec.substr(5, code - 5);
  for (const std::string& c : SplitComma(spec.substr(code + 6)))
    out.pairs.insert("arch=" + arch + ",code=" + c);
}

// Value of `-flag=value`, `-flag value` or `--long-flag=value`; advances i when the value is the next
// argument.
bool FlagValue(const std::vector<std::string>& args, size_t& i, std::initializer_list<const char*> names,
               std::string* value) {
  for (const char* name : names) {
    std::string flag(name);
    const std::string& arg = args[i];
    if (arg == flag && i + 1 < args.size()) {
      *value = args[++i];
      return true;
    }
    if (arg.rfind(flag + "=", 0) == 0) {
      *value = arg.substr(flag.size() + 1);
      return true;
    }
  }
  return false;
}

}  // namespace

std::string GencodePair(const std::string& arch) { return "arch=compute_" + arch + ",code=sm_" + arch; }

NvccTargets ParseNvccTargets(const std::vector<std::string>& args) {
  NvccTargets out;
  std::string arch;
  std::vector<std::string> codes;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string value;
    if (FlagValue(args, i, {"-gencode", "--generate-code"}, &value)) {
      AddGencode(value, out);
    } else if (FlagValue(args, i, {"-arch", "--gpu-architecture"}, &value)) {
      arch = StripQuotesAndBrackets(value);
    } else if (FlagValue(args, i, {"-code", "--gpu-code"}, &value)) {
      for (const std::string& c : SplitComma(StripQuotesAndBrackets(value))) codes.push_back(c);
    }
  }
  if (arch.empty()) return out;
  // nvcc: -arch=sm_X alone means code=[sm_X,compute_X]; -arch=compute_X alone means PTX only.
  std::string number;
  if (arch.rfind("sm_", 0) == 0) number = arch.substr(3);
  if (arch.rfind("compute_", 0) == 0) number = arch.substr(8);
  if (number.empty()) {
    out.unknown.push_back("-arch=" + arch);
    return out;
  }
  std::string virtual_arch = "compute_" + number;
  if (codes.empty()) {
    codes.push_back(virtual_arch);
    if (arch.rfind("sm_", 0) == 0) codes.push_back(arch);
  }
  for (const std::string& c : codes) out.pairs.insert("arch=" + virtual_arch + ",code=" + c);
  return out;
}

std::vector<std::string> SplitCommand(const std::string& command) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < command.size()) {
        word += command[++i];
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < command.size()) {
      word += command[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) out.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(word);
  return out;
}

}  // namespace vt::gate
