// Pieces of gprof-style call-graph text shared by the prof (GNU gprof) and
// axe (VTune's gprof-like export) readers: words, decimals, the
// `name <cycle N> [I]` tail of entry lines, and one warning for the lines
// a reader could not use.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graphgen/error.h"
#include "graphgen/flat_index.h"
#include "graphgen/profile.h"
#include "graphgen/text.h"

namespace graphgen::gprof_text {

/// Python's \s for ASCII text.
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\n'; }

inline void skip_spaces(std::string_view s, std::size_t& i) {
  while (i < s.size() && is_space(s[i])) ++i;
}

inline bool all_spaces(std::string_view s) {
  for (char c : s)
    if (!is_space(c)) return false;
  return true;
}

/// The whitespace-separated words of a line.
inline std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  for (;;) {
    skip_spaces(s, i);
    if (i >= s.size()) return out;
    std::size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    out.push_back(s.substr(i, j - i));
    i = j;
  }
}

/// digits '.' digits (Python's \d+\.\d+), as a double; with `negative`, an
/// optional leading '-' too.
inline bool decimal(std::string_view s, double& out, bool negative = false) {
  std::size_t i = negative && !s.empty() && s[0] == '-' ? 1 : 0, digits = 0, dot = std::string_view::npos;
  for (std::size_t k = i; k < s.size(); ++k) {
    if (s[k] >= '0' && s[k] <= '9') {
      ++digits;
    } else if (s[k] == '.' && dot == std::string_view::npos) {
      dot = k;
    } else {
      return false;
    }
  }
  if (dot == std::string_view::npos || dot == i || dot + 1 == s.size()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && digits > 0;
}

/// A decimal word at s[i..], after which i points past it.
inline bool take_decimal(std::string_view s, std::size_t& i, double& out, bool negative = false) {
  std::size_t j = i;
  while (j < s.size() && !is_space(s[j])) ++j;
  if (!decimal(s.substr(i, j - i), out, negative)) return false;
  i = j;
  return true;
}

/// An unsigned integer word at s[i..] (stopping at `stop` too).
inline bool take_count(std::string_view s, std::size_t& i, std::uint64_t& out, char stop = ' ') {
  std::size_t j = i;
  while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
  if (j == i || (j < s.size() && !is_space(s[j]) && s[j] != stop)) return false;
  if (!parse_u64(s.substr(i, j - i), out)) return false;
  i = j;
  return true;
}

/// The end of an entry line: `NAME[ <cycle N>] [I]`. gprof2dot's pattern
/// `(\S.*?)(?:\s+<cycle\s(\d+)>)?\s\[(\d+)\]$`: one blank before `[I]` (more
/// stay in the name); `index_needs_one_space` = false accepts any blanks
/// before it, and `[I]` missing (axe's recursion lines) when `optional_index`.
struct Tail {
  std::string_view name;
  std::uint64_t index = 0;
  bool has_index = false;
  std::int64_t cycle = -1;
  /// Where NAME starts.
  std::size_t name_at = 0;
};

/// Parses `text` (a line from where the name starts, after blanks) as a
/// tail. False when it does not fit.
inline bool tail(std::string_view text, Tail& out, bool index_needs_one_space = true, bool optional_index = false) {
  std::string_view rest = text;
  // Trailing blanks are allowed only where the index may have any.
  if (!index_needs_one_space)
    while (!rest.empty() && is_space(rest.back())) rest.remove_suffix(1);
  out.has_index = false;
  std::size_t open = std::string_view::npos;
  if (!rest.empty() && rest.back() == ']') {
    open = rest.rfind('[');
    std::uint64_t index = 0;
    if (open != std::string_view::npos && open > 0 && is_space(rest[open - 1]) &&
        parse_u64(rest.substr(open + 1, rest.size() - open - 2), index)) {
      out.index = index;
      out.has_index = true;
    } else {
      open = std::string_view::npos;
    }
  }
  if (out.has_index) {
    rest = rest.substr(0, open - 1);  // one blank before '['
    if (!index_needs_one_space)
      while (!rest.empty() && is_space(rest.back())) rest.remove_suffix(1);
  } else if (!optional_index) {
    return false;
  }
  if (rest.empty() || is_space(rest.front())) return false;
  // ' <cycle N>' at the end belongs to the tail, not the name.
  out.cycle = -1;
  if (rest.size() > 8 && rest.back() == '>') {
    std::size_t at = rest.rfind("<cycle");
    if (at != std::string_view::npos && at > 0 && is_space(rest[at - 1]) && at + 7 < rest.size() &&
        is_space(rest[at + 6])) {
      std::uint64_t n = 0;
      if (parse_u64(rest.substr(at + 7, rest.size() - at - 8), n) && n < (std::uint64_t{1} << 62)) {
        std::size_t end = at;
        while (end > 0 && is_space(rest[end - 1])) --end;
        if (end > 0) {
          out.cycle = static_cast<std::int64_t>(n);
          rest = rest.substr(0, end);
        }
      }
    }
  }
  out.name = rest;
  return true;
}

/// Lines a reader skipped, reported once.
class Skipped {
 public:
  void add(std::size_t line_number, std::string_view line) {
    if (count_++ == 0) {
      first_line_ = line_number;
      first_ = std::string(line);
    }
  }
  void report(std::string_view path, std::string_view what, Diagnostics& diag) const {
    if (count_ == 0) return;
    diag.warn(count_ == 1
                  ? at_line(path, first_line_, 1,
                            std::string("skipped a line that is not ") + std::string(what) + ": " + quote_input(first_))
                  : at_line(path, first_line_, 1,
                            "skipped " + std::to_string(count_) + " lines that are not " + std::string(what) +
                                ", the first: " + quote_input(first_)));
  }
  std::size_t count() const { return count_; }

 private:
  std::size_t count_ = 0;
  std::size_t first_line_ = 0;
  std::string first_;
};

/// A call line's leading `self [children]` decimals, each optional (gprof
/// leaves them out on spontaneous and recursive calls; VTune's may be
/// negative); what is absent stays 0.
inline void take_self_children(std::string_view line, std::size_t& i, double& self, double& children,
                               bool negative = false) {
  self = children = 0;
  double v = 0;
  if (!take_decimal(line, i, v, negative)) return;
  self = v;
  skip_spaces(line, i);
  if (!take_decimal(line, i, v, negative)) return;
  children = v;
  skip_spaces(line, i);
}

/// A gprof-style profile: functions labelled by name, one time event in
/// seconds.
inline void start_profile(Profile& p) {
  p.label_style = LabelStyle::kName;
  p.events.push_back({p.strings.intern("time"), p.strings.intern("s"), 1.0, true, kNoString});
}

/// The functions of gprof-style entries by their `[index]`, made when first
/// met; entries of one name (static functions of different files) stay
/// apart as instances; each entry read once; one call per caller and callee.
class IndexedFunctions {
 public:
  explicit IndexedFunctions(Profile& p) : p_(p) {}

  /// The function of `index`; `fresh` says whether it was made now.
  FuncId get(std::uint64_t index, std::string_view name, bool& fresh) {
    auto [it, made] = by_index_.try_emplace(index, 0);
    fresh = made;
    if (made) {
      Function f;
      f.name = p_.strings.intern(name);
      f.instance = next_instance(instances_[f.name]);
      it->second = p_.add_function(f);
      has_entry_.push_back(false);
    }
    return it->second;
  }
  FuncId get(std::uint64_t index, std::string_view name) {
    bool fresh = false;
    return get(index, name, fresh);
  }

  /// Marks the entry of `f` read; false when it was (a repeated index:
  /// the first entry stands).
  bool claim_entry(FuncId f) {
    if (has_entry_[f]) return false;
    has_entry_[f] = true;
    return true;
  }

  /// The call from `caller` to `callee`, made with `count` the first time
  /// (a repeated child line finds the same call).
  CallId call(FuncId caller, FuncId callee, std::int64_t count) {
    return calls_.find_or_add(
        FlatIndex::mix(caller, callee),
        [&](std::uint32_t id) { return p_.calls[id].caller == caller && p_.calls[id].callee == callee; },
        [&] {
          return p_.add_call({caller, callee, count});
        });
  }

 private:
  Profile& p_;
  std::unordered_map<std::uint64_t, FuncId> by_index_;
  std::unordered_map<StringId, std::uint32_t> instances_;
  std::vector<bool> has_entry_;
  FlatIndex calls_;
};

}  // namespace graphgen::gprof_text
