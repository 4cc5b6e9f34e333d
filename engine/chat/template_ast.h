// The parsed form of a chat template (internal to engine/chat).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/chat/chat_template.h"

namespace vt::chat {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  enum class Kind {
    kLiteral,  // value
    kName,     // name
    kAttr,     // args[0].name
    kIndex,    // args[0][args[1]]
    kSlice,    // args[0][args[1]:args[2]:args[3]] (null entries for omitted parts)
    kCall,     // args[0](args[1..], kwargs); args[0] is a kName or kAttr
    kFilter,   // args[0] | name(args[1..], kwargs)
    kTest,     // args[0] is [not] name
    kUnary,    // name in {"not", "-"} applied to args[0]
    kBinary,   // args[0] name args[1]
    kCond,     // args[0] if args[1] else args[2] (args[2] may be null)
    kList,     // [args...]
    kDict,     // {kwargs...} with string keys
  };
  Kind kind = Kind::kLiteral;
  nlohmann::ordered_json value;
  std::string name;
  bool negate = false;
  std::vector<ExprPtr> args;
  std::vector<std::pair<std::string, ExprPtr>> kwargs;
};

}  // namespace vt::chat

namespace vt {

struct ChatTemplate::Node {
  enum class Kind { kText, kOutput, kIf, kFor, kSet, kSequence };
  Kind kind = Kind::kSequence;
  std::string text;                                                 // kText
  chat::ExprPtr expr;                                               // kOutput, kSet value, kFor iterable
  std::vector<std::pair<chat::ExprPtr, std::shared_ptr<const Node>>> branches;  // kIf
  std::shared_ptr<const Node> else_body;                            // kIf, kFor
  std::vector<std::string> loop_vars;                               // kFor
  std::shared_ptr<const Node> body;                                 // kFor
  chat::ExprPtr loop_filter;  // kFor: `for x in xs if cond` (may be null)
  std::string target, target_attr;                                  // kSet: name or name.attr
  std::vector<std::shared_ptr<const Node>> children;                // kSequence
};

}  // namespace vt

namespace vt::chat {

// Parses template source into a tree; errors name the construct and its line.
Result<std::shared_ptr<const ChatTemplate::Node>> ParseTemplate(const std::string& source);

}  // namespace vt::chat
