// The YAML tree on what vt's configs use (block and flow styles, quoted and
// block scalars, comments, nulls) and on hostile files, each a real file in a
// temp dir: duplicate and non-scalar keys, aliases ("billion laughs"), deep
// nesting, tags, several documents, empty files, invalid UTF-8, NUL bytes and
// files past the size bound are errors naming the file and line.
#include "governance/yaml_document.h"

#include <gtest/gtest.h>

#include "tests/governance/git_fixture.h"

namespace vt::gate {
namespace {

using testing::TempDir;

class YamlFile : public ::testing::Test {
 protected:
  Result<YamlNode> Load(const std::string& text) { return LoadYamlFile(dir_.Write("doc.yaml", text), "the doc"); }

  // "doc.yaml:LINE: message" for a document that must fail, or "ok".
  std::string Error(const std::string& text) {
    Result<YamlNode> doc = Load(text);
    if (doc.ok()) return "ok";
    const std::string& message = doc.status().message();
    EXPECT_EQ(message.rfind(dir_.path() + "/", 0), 0u) << message;
    return message.substr(dir_.path().size() + 1);
  }

  TempDir dir_;
};

TEST_F(YamlFile, BlockAndFlowStylesKeepOrderTextAndLines) {
  Result<YamlNode> doc = Load(
      "# a comment\n"
      "base: origin/main   # trailing comment\n"
      "trailers:\n"
      "  required:\n"
      "    - key: Row\n"
      "      values: [none, \"true\", 'it''s']\n"
      "    - {key: Assisted-by, when: { AI-Assisted: \"true\" }, pattern: '^[^\\s:]+:\\S+$'}\n"
      "  marker: \"tab\\tand \\u00e9\"\n"
      "text: |\n"
      "  two\n"
      "  lines\n"
      "folded: >\n"
      "  one\n"
      "  line\n");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const YamlNode& root = doc.value();
  ASSERT_TRUE(root.IsMap());
  EXPECT_EQ(root.line, 2);
  std::vector<std::string> keys;
  for (const YamlEntry& entry : root.entries) keys.push_back(entry.key.scalar);
  EXPECT_EQ(keys, (std::vector<std::string>{"base", "trailers", "text", "folded"}));
  EXPECT_EQ(root.entries[1].key.line, 3);
  EXPECT_EQ(root.Find("base")->scalar, "origin/main");

  const YamlNode* required = root.Find("trailers")->Find("required");
  ASSERT_NE(required, nullptr);
  ASSERT_TRUE(required->IsSequence());
  ASSERT_EQ(required->items.size(), 2u);
  EXPECT_EQ(required->items[0].line, 5);
  const YamlNode* values = required->items[0].Find("values");
  ASSERT_TRUE(values->IsSequence());
  EXPECT_EQ(values->line, 6);
  ASSERT_EQ(values->items.size(), 3u);
  EXPECT_EQ(values->items[1].scalar, "true");
  EXPECT_EQ(values->items[2].scalar, "it's");

  const YamlNode& flow = required->items[1];
  EXPECT_TRUE(flow.IsMap());
  EXPECT_EQ(flow.line, 7);
  EXPECT_EQ(flow.Find("when")->Find("AI-Assisted")->scalar, "true");
  EXPECT_EQ(flow.Find("pattern")->scalar, "^[^\\s:]+:\\S+$");
  EXPECT_EQ(flow.Find("absent"), nullptr);
  EXPECT_EQ(flow.Find("key")->Find("key"), nullptr) << "a scalar has no keys";

  EXPECT_EQ(root.Find("trailers")->Find("marker")->scalar, "tab\tand \xc3\xa9");
  EXPECT_EQ(root.Find("text")->scalar, "two\nlines\n");
  EXPECT_EQ(root.Find("folded")->scalar, "one line\n");
}

TEST_F(YamlFile, PlainNullSpellingsAreNullAndQuotedOnesText) {
  Result<YamlNode> doc = Load("a:\nb: ~\nc: null\nd: NULL\ne: 'null'\nf: \"\"\ng: nulls\n");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  for (const char* key : {"a", "b", "c", "d"}) EXPECT_TRUE(doc->Find(key)->IsNull()) << key;
  for (const char* key : {"e", "f", "g"}) EXPECT_TRUE(doc->Find(key)->IsScalar()) << key;
  EXPECT_EQ(doc->Find("e")->scalar, "null");
  EXPECT_EQ(doc->Find("f")->scalar, "");
}

TEST_F(YamlFile, AnEmptyOrCommentOnlyFileIsANullDocument) {
  for (const char* text : {"", "\n\n", "# only a comment\n", "---\n...\n"}) {
    Result<YamlNode> doc = Load(text);
    ASSERT_TRUE(doc.ok()) << doc.status().message();
    EXPECT_TRUE(doc->IsNull()) << text;
  }
}

TEST_F(YamlFile, AMissingFileIsNotFound) {
  Result<YamlNode> doc = LoadYamlFile(dir_.path() + "/absent.yaml", "the doc");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(doc.status().message(), dir_.path() + "/absent.yaml: cannot read the doc");
}

TEST_F(YamlFile, DuplicateKeysNameTheRepeatAndTheFirst) {
  EXPECT_EQ(Error("a: 1\nb: 2\na: 3\n"), "doc.yaml:3: duplicate key 'a' (first at line 1); only one would take effect");
  EXPECT_EQ(Error("x:\n  - {k: 1, j: 2, k: 3}\n"), "doc.yaml:2: duplicate key 'k' (first at line 2); only one would take effect");
  EXPECT_EQ(Error("b: 1\na: 1\nb: 2\na: 2\n"), "doc.yaml:3: duplicate key 'b' (first at line 1); only one would take effect")
      << "the earliest repeat is reported";
  EXPECT_EQ(Error("a: 1\n'a': 2\n"), "doc.yaml:2: duplicate key 'a' (first at line 1); only one would take effect")
      << "quoting does not make a key another";
  EXPECT_EQ(Error("a: {x: 1}\nb: {x: 1}\n"), "ok") << "the same key in two mappings";
}

TEST_F(YamlFile, KeysMustBeScalars) {
  EXPECT_EQ(Error("? [a, b]\n: c\n"), "doc.yaml:1: a key must be a scalar, not null, a mapping or a sequence");
  EXPECT_EQ(Error("x: {{a: 1}: 2}\n"), "doc.yaml:1: a key must be a scalar, not null, a mapping or a sequence");
  EXPECT_EQ(Error("~: 1\n"), "doc.yaml:1: a key must be a scalar, not null, a mapping or a sequence");
}

TEST_F(YamlFile, AliasesAreCopiesOfTheirAnchors) {
  Result<YamlNode> doc = Load("ai: &ai [Claude, GPT]\nidentity:\n  tokens: *ai\n  key: &k Row\n  again: *k\n");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const YamlNode* tokens = doc->Find("identity")->Find("tokens");
  ASSERT_TRUE(tokens->IsSequence());
  ASSERT_EQ(tokens->items.size(), 2u);
  EXPECT_EQ(tokens->items[1].scalar, "GPT");
  EXPECT_EQ(doc->Find("identity")->Find("again")->scalar, "Row");
  EXPECT_EQ(Error("a: *nowhere\n"), "doc.yaml:1: alias '*nowhere' names no anchor before it");
  EXPECT_EQ(Error("a: &self [*self]\n"), "doc.yaml:1: alias '*self' names no anchor before it");
}

std::string BillionLaughs() {
  std::string text = "l0: &l0 lol\n";
  for (int i = 1; i <= 9; ++i) {
    std::string previous = "*l" + std::to_string(i - 1);
    text += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) text += (j ? ", " : "") + previous;
    text += "]\n";
  }
  return text;
}

TEST_F(YamlFile, BillionLaughsStopsAtTheBound) {
  std::string message = Error(BillionLaughs());
  EXPECT_NE(message.find("the document expands past 100000 nodes"), std::string::npos) << message;
  // A long scalar repeated by aliases is bounded by its bytes, not its node count.
  std::string text = "a: &a " + std::string(64 * 1024, 'x') + "\nb: [";
  for (int i = 0; i < 100; ++i) text += "*a, ";
  message = Error(text + "]\n");
  EXPECT_EQ(message.rfind("doc.yaml:2: the document expands past", 0), 0u) << message;
}

TEST_F(YamlFile, NestingIsBoundedWithALine) {
  std::string ok = std::string(kMaxYamlDepth, '[') + std::string(kMaxYamlDepth, ']') + "\n";
  EXPECT_EQ(Error(ok), "ok");
  EXPECT_EQ(Error("a: 1\nb: " + std::string(kMaxYamlDepth, '[') + std::string(kMaxYamlDepth, ']') + "\n"),
            "doc.yaml:2: the document nests deeper than 64 levels");
  // A million brackets: the first past the bound ends the parse.
  EXPECT_EQ(Error(std::string(1'000'000, '[')), "doc.yaml:1: the document nests deeper than 64 levels");
  // An alias counts the depth of what it copies.
  std::string deep = "a: &deep " + std::string(40, '[') + std::string(40, ']') + "\nb: " + std::string(30, '[') +
                     "*deep" + std::string(30, ']') + "\n";
  EXPECT_EQ(Error(deep), "doc.yaml:2: the document nests deeper than 64 levels");
}

TEST_F(YamlFile, TagsAreRejected) {
  EXPECT_EQ(Error("a: 1\nb: !!str 2\n"),
            "doc.yaml:2: tag 'tag:yaml.org,2002:str' is not supported (quote the value if it must stay text)");
  EXPECT_EQ(Error("a: !custom {x: 1}\n"),
            "doc.yaml:1: tag '!custom' is not supported (quote the value if it must stay text)");
}

TEST_F(YamlFile, ASecondDocumentIsAnError) {
  EXPECT_EQ(Error("a: 1\n---\nb: 2\n"), "doc.yaml:2: a second document; the file must hold one");
  EXPECT_EQ(Error("---\na: 1\n...\n"), "ok");
}

TEST_F(YamlFile, InvalidUtf8AndControlCharactersNameTheirLine) {
  EXPECT_EQ(Error("a: b\nc: \xff\n"), "doc.yaml:2: invalid leading UTF-8 octet");
  EXPECT_EQ(Error("a: b\n\nc: \xc3\x28\n"), "doc.yaml:3: invalid trailing UTF-8 octet");
  EXPECT_EQ(Error("a: \x01\n"), "doc.yaml:1: control characters are not allowed");
}

TEST_F(YamlFile, NulBytesAreErrors) {
  EXPECT_EQ(Error(std::string("a: b\nc: d\0e\n", 12)), "doc.yaml:2: a NUL byte: the file is binary");
  EXPECT_EQ(Error("a: \"x\\0y\"\n"), "doc.yaml:1: a scalar holds a NUL character");
}

TEST_F(YamlFile, AFileOverTheBoundIsAnError) {
  std::string big = "a: " + std::string(kMaxYamlBytes, 'x') + "\n";
  EXPECT_EQ(Error(big), "doc.yaml:1: the file is over 1048576 bytes, more than a YAML file here may hold");
  EXPECT_EQ(Error(std::string(kMaxYamlBytes - 6, '#') + "\na: 1\n"), "ok") << "the bound itself is allowed";
  Result<YamlNode> text = ParseYaml(big, "text.yaml");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().message().rfind("text.yaml:1: the file is over", 0), 0u) << text.status().message();
}

TEST_F(YamlFile, SyntaxErrorsNameTheirLine) {
  EXPECT_EQ(Error("a: [\n"),
            "doc.yaml:2: did not find expected node content (while parsing a flow node at line 2)");
  EXPECT_EQ(Error("a: 1\nb: c: d\n"), "doc.yaml:2: mapping values are not allowed in this context");
  EXPECT_EQ(Error("a:\n  - x\n  y: 1\n"),
            "doc.yaml:3: did not find expected '-' indicator (while parsing a block collection at line 2)");
}

}  // namespace
}  // namespace vt::gate
