// Where a JSON value ends, found without parsing it: for the readers that
// take a big document a member or an element at a time (gprof2dot's json
// events, Chrome's trace events) and hand each piece to simdjson, which
// then checks what it holds.
#pragma once

#include <cstddef>
#include <string_view>

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
  /// A member name of letters and underscores (up to 16), without escapes.
  bool plain_key(std::string_view& key);
  /// A member's name and its colon, with the space around them.
  bool member_name(std::string_view& key);
  /// Past one JSON number token; `fractional` when it has a fraction or an
  /// exponent.
  bool number_token(bool& fractional);
  /// A JSON number as simdjson gives it: an integer of up to 18 digits
  /// exactly (as its int64), anything with a fraction or an exponent as
  /// the correctly rounded double (as simdjson's, which rounds correctly
  /// too). False for any other token (more digits, out of range).
  bool json_number(double& out, bool& fractional);

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace graphgen::formats
