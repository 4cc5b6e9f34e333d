#include "engine/grammar/integer_range.h"

#include <algorithm>
#include <string>

namespace vt::grammar {
namespace {

class RangeSpeller {
 public:
  RangeSpeller(const std::function<Element(int)>& any_digits, std::vector<Sequence>* out)
      : any_digits_(any_digits), out_(out) {}

  // The magnitudes of [a, b], 0 <= a <= b, each alternative after `sign`.
  void Magnitudes(int64_t a, int64_t b, const Sequence& sign) {
    // The numbers of 1 digit, then 2, ...; b has at most 16, so no bound overflows.
    for (int64_t low_of_length = 0, high_of_length = 9; low_of_length <= b;
         low_of_length = high_of_length + 1, high_of_length = high_of_length * 10 + 9) {
      const int64_t lo = std::max(a, low_of_length), hi = std::min(b, high_of_length);
      if (lo <= hi) SameLength(std::to_string(lo), std::to_string(hi), sign);
    }
  }

 private:
  // The digit strings from `a` to `b`, of one length, after `prefix`.
  void SameLength(const std::string& a, const std::string& b, Sequence prefix) {
    size_t shared = 0;
    while (shared < a.size() && a[shared] == b[shared]) prefix.push_back(Char(uint32_t(a[shared++])));
    if (shared == a.size()) {
      out_->push_back(std::move(prefix));
      return;
    }
    const char first_a = a[shared], first_b = b[shared];
    const std::string rest_a = a.substr(shared + 1), rest_b = b.substr(shared + 1);
    const int rest = int(rest_a.size());
    if (rest == 0) {
      prefix.push_back(Chars({{uint32_t(first_a), uint32_t(first_b)}}));
      out_->push_back(std::move(prefix));
      return;
    }
    // a = first_a rest_a .. first_a 99..9, then whole digits between, then first_b 00..0 .. b; a
    // side whose rest is already all zeros (all nines) joins the whole digits.
    const bool a_whole = rest_a.find_first_not_of('0') == std::string::npos;
    const bool b_whole = rest_b.find_first_not_of('9') == std::string::npos;
    if (!a_whole) SameLength(rest_a, std::string(size_t(rest), '9'), Extended(prefix, Char(uint32_t(first_a))));
    const char from = a_whole ? first_a : char(first_a + 1), to = b_whole ? first_b : char(first_b - 1);
    if (from <= to) {
      Sequence middle = Extended(prefix, Chars({{uint32_t(from), uint32_t(to)}}));
      middle.push_back(any_digits_(rest));
      out_->push_back(std::move(middle));
    }
    if (!b_whole) SameLength(std::string(size_t(rest), '0'), rest_b, Extended(prefix, Char(uint32_t(first_b))));
  }

  static Sequence Extended(Sequence s, Element e) {
    s.push_back(std::move(e));
    return s;
  }

  const std::function<Element(int)>& any_digits_;
  std::vector<Sequence>* out_;
};

}  // namespace

std::vector<Sequence> IntegerRangeAlternatives(int64_t lo, int64_t hi, const std::function<Element(int)>& any_digits) {
  std::vector<Sequence> out;
  RangeSpeller speller(any_digits, &out);
  if (lo < 0) speller.Magnitudes(std::max<int64_t>(1, hi < 0 ? -hi : 1), -lo, {Char('-')});
  if (hi >= 0) speller.Magnitudes(std::max<int64_t>(0, lo), hi, {});
  return out;
}

}  // namespace vt::grammar
