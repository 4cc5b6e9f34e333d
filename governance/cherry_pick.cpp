#include "governance/cherry_pick.h"

#include <memory>

namespace vt::gate {
namespace {

// sequencer.c writes exactly this, with the full id and a closing parenthesis.
constexpr std::string_view kPrefix = "(cherry picked from commit ";

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

struct Person {
  std::string name;
  std::string email;
  std::string Describe() const { return name + " <" + email + ">"; }
};

Person PersonOf(const git_signature* signature) {
  if (!signature) return {};
  return {signature->name ? signature->name : "", signature->email ? signature->email : ""};
}

// Names compare exactly; e-mail addresses are compared without case, as mail
// systems treat them in practice.
bool SamePerson(const Person& a, const Person& b) { return a.name == b.name && EqualsNoCase(a.email, b.email); }

// A trailer value "Name <email>", as Co-authored-by and Signed-off-by write it.
bool NamesPerson(std::string_view value, const Person& who) {
  value = Trim(value);
  size_t open = value.rfind('<');
  if (open == std::string_view::npos || value.empty() || value.back() != '>') return false;
  Person named{std::string(Trim(value.substr(0, open))),
               std::string(value.substr(open + 1, value.size() - open - 2))};
  return SamePerson(named, who);
}

bool Waived(const CherryPickRule& rule, const TrailerBlock& block, const Person& source_author) {
  for (const Trailer& t : block.trailers) {
    for (const std::string& key : rule.author_waivers) {
      if (EqualsNoCase(t.key, key) && NamesPerson(t.value, source_author)) return true;
    }
  }
  return false;
}

std::string Where(const CherryPickClaim& claim) {
  return "line " + std::to_string(claim.line) + " `(cherry picked from commit " + claim.source + ")`";
}

}  // namespace

std::vector<CherryPickClaim> FindCherryPickClaims(std::string_view message) {
  std::vector<CherryPickClaim> claims;
  int line = 1;
  for (size_t start = 0; start < message.size(); ++line) {
    size_t nl = message.find('\n', start);
    if (nl == std::string_view::npos) nl = message.size();
    std::string_view text = Trim(message.substr(start, nl - start));
    start = nl + 1;
    if (text.substr(0, kPrefix.size()) != kPrefix) continue;
    CherryPickClaim claim;
    claim.line = line;
    std::string_view rest = text.substr(kPrefix.size());
    size_t close = rest.find(')');
    claim.source = std::string(Trim(rest.substr(0, close)));
    size_t hex = 0;
    while (hex < claim.source.size() && IsHex(claim.source[hex])) ++hex;
    claim.well_formed = close != std::string_view::npos && hex == claim.source.size() && hex >= 4 &&
                        hex <= GIT_OID_HEXSZ && Trim(rest.substr(close + 1)).empty();
    claims.push_back(std::move(claim));
  }
  return claims;
}

ProvenanceVerdict CheckCherryPickProvenance(const Repository& repo, const CherryPickRule& rule,
                                            const TrailerSyntax& syntax, git_commit* commit) {
  ProvenanceVerdict verdict;
  const char* raw = git_commit_message(commit);
  std::string_view message = raw ? raw : "";
  if (message.find(kPrefix) == std::string_view::npos) return verdict;
  std::vector<CherryPickClaim> claims = FindCherryPickClaims(message);
  if (claims.empty()) return verdict;
  const Person author = PersonOf(git_commit_author(commit));
  const TrailerBlock block = ParseTrailers(message, syntax);
  const bool shallow = git_repository_is_shallow(repo.raw()) == 1;

  for (const CherryPickClaim& claim : claims) {
    if (!claim.well_formed) {
      verdict.findings.push_back({"cherry-pick:source", claim.line,
                                  Where(claim) + " does not name a commit id (4 to 40 hex digits)"});
      continue;
    }
    git_oid oid;
    git_object* object = nullptr;
    int rc = git_oid_fromstrn(&oid, claim.source.c_str(), claim.source.size());
    if (rc == 0) rc = git_object_lookup_prefix(&object, repo.raw(), &oid, claim.source.size(), GIT_OBJECT_ANY);
    if (rc == GIT_ENOTFOUND) {
      // Below a shallow clone's cut the source may well exist: unverified, not wrong.
      if (shallow) {
        verdict.unverified.push_back(claim.source + " is not in this shallow clone (git fetch --unshallow)");
      } else {
        verdict.findings.push_back(
            {"cherry-pick:source", claim.line,
             Where(claim) + ": commit " + claim.source +
                 " is not in this repository; fetch the branch it came from, or correct the id"});
      }
      continue;
    }
    if (rc == GIT_EAMBIGUOUS) {
      verdict.findings.push_back({"cherry-pick:source", claim.line,
                                  Where(claim) + ": " + claim.source + " is ambiguous; write the full id"});
      continue;
    }
    if (rc != 0) {
      // A corrupt object is not evidence either way.
      verdict.unverified.push_back(claim.source + " cannot be read: " + LastGitError());
      continue;
    }
    std::unique_ptr<git_object, void (*)(git_object*)> owned(object, git_object_free);
    if (git_object_type(object) != GIT_OBJECT_COMMIT) {
      verdict.findings.push_back({"cherry-pick:source", claim.line,
                                  Where(claim) + ": " + claim.source + " is a " +
                                      git_object_type2string(git_object_type(object)) + ", not a commit"});
      continue;
    }
    const Person source_author = PersonOf(git_commit_author(reinterpret_cast<git_commit*>(object)));
    if (SamePerson(author, source_author) || Waived(rule, block, source_author)) continue;
    std::string waivers;
    for (const std::string& key : rule.author_waivers) waivers += (waivers.empty() ? "" : " or ") + key;
    verdict.findings.push_back(
        {"cherry-pick:author", claim.line,
         "author " + author.Describe() + " differs from " + source_author.Describe() + ", the author of " +
             OidHex(*git_object_id(object)) + " it was cherry-picked from; keep the original author" +
             (waivers.empty() ? std::string()
                              : " or credit them in a " + waivers + ": " + source_author.Describe() +
                                    " trailer")});
  }
  return verdict;
}

}  // namespace vt::gate
