#include "governance/walked_commit.h"

#include <cstring>
#include <memory>
#include <utility>

namespace vt::gate {
namespace {

constexpr size_t kHex = GIT_OID_HEXSZ;

// Hex digit values, -1 for anything else (git__fromhex).
struct HexTable {
  signed char value[256];
  constexpr HexTable() : value() {
    for (int c = 0; c < 256; ++c) value[c] = -1;
    for (int c = 0; c < 10; ++c) value['0' + c] = static_cast<signed char>(c);
    for (int c = 0; c < 6; ++c) {
      value['a' + c] = static_cast<signed char>(10 + c);
      value['A' + c] = static_cast<signed char>(10 + c);
    }
  }
};
constexpr HexTable kHexTable;

int HexValue(char c) { return kHexTable.value[static_cast<unsigned char>(c)]; }

// git_oid__parse: `header`, 40 hex digits and a newline.
bool ParseOidLine(const char*& at, const char* end, std::string_view header, git_oid* out) {
  if (static_cast<size_t>(end - at) < header.size() + kHex + 1) return false;
  if (std::memcmp(at, header.data(), header.size()) != 0 || at[header.size() + kHex] != '\n') return false;
  const char* hex = at + header.size();
  for (size_t i = 0; i < kHex / 2; ++i) {
    int hi = HexValue(hex[2 * i]);
    int lo = HexValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->id[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  at += header.size() + kHex + 1;
  return true;
}

// A signature line git_signature__parse reads without complaint and whose
// time is plain digits; its time in `time`. Anything else is left to libgit2.
bool PlainSignatureLine(const char*& at, const char* end, std::string_view header, git_time_t* time) {
  if (static_cast<size_t>(end - at) < header.size() || std::memcmp(at, header.data(), header.size()) != 0)
    return false;
  const char* line = at + header.size();
  const char* eol = static_cast<const char*>(std::memchr(line, '\n', static_cast<size_t>(end - line)));
  if (!eol) return false;
  size_t length = static_cast<size_t>(eol - line);
  const char* open = static_cast<const char*>(memrchr(line, '<', length));
  const char* close = static_cast<const char*>(memrchr(line, '>', length));
  if (!open || !close || close <= open) return false;
  // The time starts two bytes after the email; its digits run to a blank or the end.
  const char* digit = close + 2;
  if (digit >= eol || *digit < '0' || *digit > '9') return false;
  git_time_t value = 0;
  int digits = 0;
  for (; digit < eol && *digit >= '0' && *digit <= '9'; ++digit) {
    if (++digits > 18) return false;  // no overflow to mimic
    value = value * 10 + (*digit - '0');
  }
  *time = value;
  at = eol + 1;
  return true;
}

// What git_signature__parse trims off a name or an email (libgit2 1.5's is_crud, after git's
// ident.c): control characters, blanks and some punctuation.
bool IsCrud(char ch) {
  const unsigned char c = static_cast<unsigned char>(ch);
  return c <= 32 || c == '.' || c == ',' || c == ':' || c == ';' || c == '<' || c == '>' || c == '"' || c == '\\' ||
         c == '\'';
}

// extract_trimmed of git_signature__parse: crud off both ends, then up to a NUL (a C string).
std::string_view Trimmed(const char* begin, const char* end) {
  while (begin < end && IsCrud(*begin)) ++begin;
  while (end > begin && IsCrud(end[-1])) --end;
  std::string_view text(begin, static_cast<size_t>(end - begin));
  return text.substr(0, text.find('\0'));
}

// "Name <email>" of a signature line PlainSignatureLine accepted (`line` after its header, up to
// the newline), as libgit2 splits it: the email between the last '<' and the last '>', each part
// trimmed.
std::string SignatureText(const char* line, const char* eol) {
  const size_t length = static_cast<size_t>(eol - line);
  const char* open = static_cast<const char*>(memrchr(line, '<', length));
  const char* close = static_cast<const char*>(memrchr(line, '>', length));
  std::string text(Trimmed(line, open));
  text += " <";
  text += Trimmed(open + 1, close);
  text += '>';
  return text;
}

}  // namespace

std::string SignatureText(const git_signature* signature) {
  if (!signature) return "";
  return std::string(signature->name ? signature->name : "") + " <" + (signature->email ? signature->email : "") + ">";
}

Result<WalkedCommit> WalkedCommit::Read(const Repository& repo, const git_oid& oid, bool author) {
  WalkedCommit commit;
  commit.repo_ = &repo;
  commit.id_ = oid;
  git_odb* odb = nullptr;
  if (git_repository_odb(&odb, repo.raw()) != 0) return Unavailable(LastGitError());
  git_odb_object* raw = nullptr;
  int rc = git_odb_read(&raw, odb, &oid);
  git_odb_free(odb);
  if (rc != 0) return Unavailable(LastGitError());
  std::unique_ptr<git_odb_object, void (*)(git_odb_object*)> owned(raw, git_odb_object_free);
  const char* data = static_cast<const char*>(git_odb_object_data(raw));
  const char* end = data + git_odb_object_size(raw);
  const char* at = data;
  git_oid id;
  git_time_t committed = 0;
  bool plain = git_odb_object_type(raw) == GIT_OBJECT_COMMIT && ParseOidLine(at, end, "tree ", &id);
  while (plain && ParseOidLine(at, end, "parent ", &id)) commit.parents_.push_back(id);
  // libgit2 reads extra author lines as signatures too: those go to it.
  const char* author_begin = at;
  plain = plain && PlainSignatureLine(at, end, "author ", &committed);
  const char* author_end = at - 1;  // the author line's newline, when `plain`
  plain = plain && !(end - at >= 7 && std::memcmp(at, "author ", 7) == 0) &&
          PlainSignatureLine(at, end, "committer ", &committed);
  if (!plain) {
    // Whatever libgit2 makes of it, error included.
    git_commit* full = nullptr;
    if (git_commit_lookup(&full, repo.raw(), &oid) != 0) return Unavailable(LastGitError());
    WalkedCommit wrapped = Borrow(full, author);
    wrapped.repo_ = &repo;
    wrapped.borrowed_ = false;
    return wrapped;
  }
  commit.time_ = committed;
  if (author) commit.author_ = std::make_unique<const std::string>(SignatureText(author_begin + 7, author_end));
  // The rest of the header, as commit_parse: it ends at the first empty line;
  // the last `encoding` line names the encoding.
  while (at < end) {
    if (at[-1] == '\n' && at[0] == '\n') break;
    const char* eol = static_cast<const char*>(std::memchr(at, '\n', static_cast<size_t>(end - at)));
    if (!eol) eol = end;
    if (end - at >= 9 && std::memcmp(at, "encoding ", 9) == 0) {
      // git__strndup stops at a NUL.
      std::string_view value(at + 9, static_cast<size_t>(eol - at - 9));
      commit.encoding_.assign(value.substr(0, value.find('\0')));
      commit.has_encoding_ = true;
    }
    at = eol < end ? eol + 1 : eol;
  }
  const char* message = at + 1;
  if (message > end) message = end;
  std::string_view text(message, static_cast<size_t>(end - message));
  text = text.substr(0, text.find('\0'));
  while (!text.empty() && text.front() == '\n') text.remove_prefix(1);
  commit.own_message_.assign(text);
  commit.owns_message_ = true;
  return commit;
}

WalkedCommit WalkedCommit::Borrow(git_commit* full, bool author) {
  WalkedCommit commit;
  commit.id_ = *git_commit_id(full);
  commit.time_ = git_commit_time(full);
  unsigned count = git_commit_parentcount(full);
  commit.parents_.reserve(count);
  for (unsigned i = 0; i < count; ++i) commit.parents_.push_back(*git_commit_parent_id(full, i));
  const char* message = git_commit_message(full);
  commit.message_ = message ? message : "";
  if (author) commit.author_ = std::make_unique<const std::string>(SignatureText(git_commit_author(full)));
  if (const char* encoding = git_commit_message_encoding(full)) {
    commit.encoding_ = encoding;
    commit.has_encoding_ = true;
  }
  commit.full_ = full;
  commit.borrowed_ = true;
  return commit;
}

const std::string& WalkedCommit::author() const {
  static const std::string kNone;
  return author_ ? *author_ : kNone;
}

git_commit* WalkedCommit::Full() const {
  if (!full_ && repo_ && git_commit_lookup(&full_, repo_->raw(), &id_) != 0) full_ = nullptr;
  return full_;
}

WalkedCommit::WalkedCommit(WalkedCommit&& other) noexcept
    : repo_(other.repo_),
      id_(other.id_),
      time_(other.time_),
      parents_(std::move(other.parents_)),
      own_message_(std::move(other.own_message_)),
      owns_message_(other.owns_message_),
      message_(other.message_),
      encoding_(std::move(other.encoding_)),
      has_encoding_(other.has_encoding_),
      author_(std::move(other.author_)),
      full_(std::exchange(other.full_, nullptr)),
      borrowed_(other.borrowed_) {}

WalkedCommit& WalkedCommit::operator=(WalkedCommit&& other) noexcept {
  if (this == &other) return *this;
  Release();
  repo_ = other.repo_;
  id_ = other.id_;
  time_ = other.time_;
  parents_ = std::move(other.parents_);
  encoding_ = std::move(other.encoding_);
  has_encoding_ = other.has_encoding_;
  author_ = std::move(other.author_);
  own_message_ = std::move(other.own_message_);
  owns_message_ = other.owns_message_;
  message_ = other.message_;  // in full_, which moves along
  full_ = std::exchange(other.full_, nullptr);
  borrowed_ = other.borrowed_;
  return *this;
}

WalkedCommit::~WalkedCommit() { Release(); }

void WalkedCommit::Release() {
  if (full_ && !borrowed_) git_commit_free(full_);
  full_ = nullptr;
}

}  // namespace vt::gate
