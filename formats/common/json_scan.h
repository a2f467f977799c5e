// Where a JSON value ends, found without parsing it, and a cursor with the
// few rules the streaming JSON readers read by: for the readers that take a
// big document a member or an element at a time (gprof2dot's json events,
// Chrome's trace events, .cpuprofile and speedscope arrays) and hand the
// rest to simdjson, which then checks what it holds.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "graphgen/io.h"

namespace graphgen::formats {

/// Moves `pos` past the JSON value starting there: a string to its closing
/// quote (escapes passed over), an array or object to its closing bracket
/// (brackets outside strings counted, of either kind), a scalar to the
/// next comma, bracket or space. False when the text ends first. What the
/// value holds is not checked.
bool skip_json_value(std::string_view text, std::size_t& pos);

/// A place in JSON text, for the readers' own few rules: spaces, one
/// expected character, a member name, a number, a whole value passed over.
class JsonCursor {
 protected:
  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  static bool is_end_of_scalar(char c) { return is_space(c) || c == ',' || c == '}' || c == ']'; }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  void space() {
    while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  }
  bool eat(char c) {
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  bool skip_value() { return skip_json_value(text_, pos_); }
  /// A member's name (any bytes but an escape or a control character: the
  /// readers look for names of letters) and its colon, with the space
  /// around them.
  bool member_name(std::string_view& key);
  /// The members of an object whose `{` was eaten, to its `}` (eaten):
  /// `member(name)` reads each value.
  template <class Member>
  bool object(Member&& member) {
    space();
    if (eat('}')) return true;
    for (;;) {
      std::string_view key;
      if (!member_name(key) || !member(key)) return false;
      space();
      if (eat(',')) continue;
      return eat('}');
    }
  }
  /// The items of an array whose `[` was eaten, to its `]` (left there for
  /// the caller): `item()` reads each.
  template <class Item>
  bool items(Item&& item) {
    space();
    if (pos_ < text_.size() && text_[pos_] == ']') return true;
    for (;;) {
      if (!item()) return false;
      space();
      if (eat(',')) {
        space();
        continue;
      }
      return pos_ < text_.size() && text_[pos_] == ']';
    }
  }
  /// Past one JSON number token; `fractional` when it has a fraction or an
  /// exponent.
  bool number_token(bool& fractional);
  /// A JSON number as simdjson gives it: an integer of up to 18 digits
  /// exactly (as its int64), anything with a fraction or an exponent as
  /// the correctly rounded double (as simdjson's, which rounds correctly
  /// too). False for any other token (more digits, out of range).
  bool json_number(double& out, bool& fractional);
  /// A JSON number as simdjson's get_double() gives it: json_number() but
  /// for -0 (simdjson reads the integer as -0.0, the rule as 0).
  bool json_double(double& out) {
    const std::size_t begin = pos_;
    bool fractional = false;
    return json_number(out, fractional) && !(out == 0 && text_[begin] == '-');
  }
  /// A JSON integer of 0 to `most`, without sign, fraction or exponent.
  bool json_index(std::uint32_t& out, std::uint32_t most) {
    const std::size_t begin = pos_;
    double d = 0;
    bool fractional = false;
    if (!json_number(d, fractional) || fractional || text_[begin] == '-' || d > most) return false;
    out = static_cast<std::uint32_t>(d);
    return true;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

/// A JSON document read by JsonCursor's rules where a reader takes some
/// arrays' items out as it passes them (giving back their pages): the rest
/// of the text is kept, those arrays left empty, for the reader's general
/// path to read with simdjson (the .cpuprofile and speedscope readers: the
/// long arrays of numbers theirs, everything else the general path's).
class JsonHollowing : protected JsonCursor {
 protected:
  explicit JsonHollowing(const InputFile& in) : passed_(&in) { text_ = in.bytes(); }

  /// An array at the cursor: each item read by `item()`, the cursor left
  /// past its `]`; its items are not kept.
  template <class Item>
  bool take_array(Item&& item) {
    if (!eat('[')) return false;
    kept_.append(text_.substr(copied_, pos_ - copied_));
    if (!items([&] {
          if (!item()) return false;
          passed_.at(pos_);
          return true;
        }))
      return false;
    copied_ = pos_++;  // from the closing bracket on
    return true;
  }
  /// Room for as many items as the rest of the input can hold at `least`
  /// bytes each (at most 2^28): reserved, an array never grows by doubling,
  /// which holds the old and new copies at once; room not used costs no
  /// memory.
  std::size_t room(std::size_t least) const {
    return std::min((text_.size() - pos_) / least, std::size_t{1} << 28) + 1;
  }
  /// The document kept: once it has all been passed, the text without the
  /// taken arrays' items.
  const std::string& kept() {
    kept_.append(text_.substr(copied_));
    copied_ = text_.size();
    return kept_;
  }

 private:
  PassedPages passed_;
  std::string kept_;
  std::size_t copied_ = 0;  // the input up to here is in kept_
};

}  // namespace graphgen::formats
