#include "reader.h"

#include <fmt/format.h>

#include <array>

#include "graphgen/analysis/merge.h"
#include "graphgen/flat_index.h"
#include "graphgen/text.h"

namespace graphgen::callgrind {

bool sniff(std::string_view head) {
  if (head.starts_with("# callgrind format")) return true;
  std::string_view h = head.substr(0, 2047);
  std::size_t pos = 0;
  while (pos < h.size()) {
    std::size_t nl = h.find('\n', pos);
    std::string_view line = h.substr(pos, nl == std::string_view::npos ? h.size() - pos : nl - pos);
    if (line.starts_with("events:") || line.starts_with("creator:")) return true;
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return false;
}

namespace {

enum Kind { kObject = 0, kFile = 1, kFunction = 2 };


constexpr FuncId kNoFunction = UINT32_MAX;

class Reader {
 public:
  Reader(Profile& p, bool merge_by_name, Diagnostics& diag) : p_(p), diag_(diag), merge_by_name_(merge_by_name) {}

  Expected<bool> read_file(const InputFile& input) {
    path_ = input.path();
    reset_file_state();
    LineScanner scanner(input.bytes(), &input);
    std::string_view line;
    while (scanner.next(line)) {
      line_no_ = scanner.line_number();
      if (auto ok = dispatch(line); !ok) return ok;
    }
    if (in_call_)
      return fail(line_no_ + 1, 1, "expected the cost line of the call after 'calls=', found the end of the file");
    return true;
  }

  void finish() {
    if (ignored_headers_ > 0)
      diag_.warn(fmt::format("{}: ignored {} header line(s) of unknown keys, first '{}'", path_, ignored_headers_,
                             first_ignored_));
  }

 private:
  Error fail(std::size_t line, std::size_t col, std::string message) const {
    return bad_input(at_line(path_, line, col, message));
  }

  void reset_file_state() {
    for (auto& t : names_) t.clear();
    ob_ = fl_ = fi_ = fn_ = cob_ = cfi_ = cfn_ = kNoString;
    fn_set_ = cfn_set_ = cob_set_ = false;
    file_switch_pending_ = false;
    current_ = kNoFunction;
    in_call_ = in_jump_ = false;
    positions_ = 1;
    line_position_ = 0;
    last_.assign(1, 0);
    columns_.clear();
    saw_events_ = false;
  }

  Expected<bool> dispatch(std::string_view line) {
    if (line.empty()) return true;
    char c = line[0];
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*') return cost_line(line);
    if (c == '#') return true;
    std::size_t eq = line.find('=');
    std::size_t colon = line.find(':');
    if (eq != std::string_view::npos && (colon == std::string_view::npos || eq < colon))
      return spec_line(line, eq);
    if (colon != std::string_view::npos) return header_line(line, colon);
    if (trim(line).empty()) return true;
    return fail(line_no_, 1, fmt::format("expected a cost line, a name spec such as 'fn=...', 'calls=' or "
                                         "'key: value', found {}",
                                         quote_input(line)));
  }

  // --- header -------------------------------------------------------------

  Expected<bool> header_line(std::string_view line, std::size_t colon) {
    std::string_view key = line.substr(0, colon);
    std::string_view value = trim(line.substr(colon + 1));
    if (key == "events") return events_line(value, colon + 2);
    if (key == "positions") return positions_line(value, colon + 2);
    if (key == "version") {
      if (!value.empty() && value[0] >= '2' && value[0] <= '9')
        return fail(line_no_, colon + 3, fmt::format("expected format version 1, found {}", quote_input(value)));
      return true;
    }
    static constexpr std::array<std::string_view, 9> kKnown = {"creator", "pid",     "thread", "part", "cmd",
                                                               "desc",    "summary", "totals", "event"};
    for (std::string_view k : kKnown)
      if (key == k) return true;
    if (ignored_headers_++ == 0) first_ignored_ = std::string(line.substr(0, 60));
    return true;
  }

  // Calls fn(word, offset) for each blank-separated word until fn fails.
  template <class Fn>
  static Expected<bool> for_each_word(std::string_view value, Fn&& fn) {
    std::size_t i = 0;
    while (i < value.size()) {
      while (i < value.size() && is_blank(value[i])) ++i;
      std::size_t j = i;
      while (j < value.size() && !is_blank(value[j])) ++j;
      if (j > i)
        if (auto ok = fn(value.substr(i, j - i), i); !ok) return ok;
      i = j;
    }
    return true;
  }

  Expected<bool> events_line(std::string_view value, std::size_t col) {
    columns_.clear();
    auto ok = for_each_word(value, [&](std::string_view name, std::size_t i) -> Expected<bool> {
        StringId id = p_.strings.intern(name);
        std::size_t index = p_.events.size();
        for (std::size_t e = 0; e < p_.events.size(); ++e)
          if (p_.events[e].name == id) index = e;
        if (index == p_.events.size()) {
          if (!p_.functions.empty() || !p_.calls.empty())
            return fail(line_no_, col + i,
                        fmt::format("expected the events of the first part, found the new event {} (parts with "
                                    "different events cannot be summed)",
                                    quote_input(name)));
          p_.events.push_back({id, kNoString, 0});
        }
        columns_.push_back(static_cast<std::uint32_t>(index));
        return true;
    });
    if (!ok) return ok;
    if (columns_.empty()) return fail(line_no_, col, "expected at least one event name after 'events:', found none");
    saw_events_ = true;
    costs_.assign(p_.events.size(), 0);
    return true;
  }

  Expected<bool> positions_line(std::string_view value, std::size_t col) {
    positions_ = 0;
    line_position_ = -1;
    auto ok = for_each_word(value, [&](std::string_view name, std::size_t i) -> Expected<bool> {
        if (name == "line") line_position_ = positions_;
        if (name != "line" && name != "instr" && name != "bb")
          return fail(line_no_, col + i, fmt::format("expected position names instr, bb or line, found {}",
                                                     quote_input(name)));
        ++positions_;
        return true;
    });
    if (!ok) return ok;
    if (positions_ == 0) return fail(line_no_, col, "expected position names after 'positions:', found none");
    last_.assign(static_cast<std::size_t>(positions_), 0);
    return true;
  }

  // --- name specs and associations -----------------------------------------

  Expected<bool> spec_line(std::string_view line, std::size_t eq) {
    std::string_view spec = line.substr(0, eq);
    std::string_view value = line.substr(eq + 1);
    if (spec == "calls" || spec == "rcalls") return calls_line(value, eq + 2);
    if (spec == "jump" || spec == "jcnd") {
      in_jump_ = true;
      return true;
    }
    Kind kind;
    if (spec == "ob" || spec == "cob")
      kind = kObject;
    else if (spec == "fl" || spec == "fi" || spec == "fe" || spec == "cfi" || spec == "cfl" || spec == "jfi")
      kind = kFile;
    else if (spec == "fn" || spec == "cfn" || spec == "jfn")
      kind = kFunction;
    else
      return fail(line_no_, 1, fmt::format("expected a name spec (ob fl fi fe fn cob cfi cfl cfn jfi jfn), found {}",
                                           quote_input(spec)));
    StringId name = kNoString;
    if (auto ok = resolve_name(kind, value, eq + 2, name); !ok) return ok;
    if (spec == "ob") {
      ob_ = name;
      current_ = kNoFunction;
    } else if (spec == "fl") {
      fl_ = fi_ = name;
      current_ = kNoFunction;
    } else if (spec == "fi" || spec == "fe") {
      fi_ = name;
      file_switch_pending_ = true;
    } else if (spec == "fn") {
      // Valgrind never puts fi= right before fn=; converters that do (e.g.
      // the one behind gprof2dot's bzr sample) mean the function's file.
      if (file_switch_pending_) fl_ = fi_;
      file_switch_pending_ = false;
      fn_ = name;
      fn_set_ = true;
      fi_ = fl_;
      current_ = kNoFunction;
    } else if (spec == "cob") {
      cob_ = name;
      cob_set_ = true;
    } else if (spec == "cfi" || spec == "cfl") {
      cfi_ = name;
    } else if (spec == "cfn") {
      cfn_ = name;
      cfn_set_ = true;
    }
    return true;
  }

  Expected<bool> resolve_name(Kind kind, std::string_view value, std::size_t col, StringId& out) {
    std::vector<StringId>& table = names_[kind];
    if (value.size() >= 2 && value[0] == '(' && value[1] >= '0' && value[1] <= '9') {
      std::size_t close = value.find(')');
      std::uint64_t id = 0;
      if (close == std::string_view::npos || !parse_u64(value.substr(1, close - 1), id) || id > (1u << 24))
        return fail(line_no_, col, fmt::format("expected a name id '(N)' below 16777216, found {}", quote_input(value)));
      std::string_view name = trim(value.substr(close + 1));
      if (!name.empty()) {
        if (table.size() <= id) table.resize(id + 1, kUndefined);
        table[id] = out = p_.strings.intern(name);
        return true;
      }
      if (id >= table.size() || table[id] == kUndefined)
        return fail(line_no_, col, fmt::format("expected a defined name id, found ({}) used before its definition", id));
      out = table[id];
      return true;
    }
    out = p_.strings.intern(trim(value));
    return true;
  }

  Expected<bool> calls_line(std::string_view value, std::size_t col) {
    if (in_call_)
      return fail(line_no_, 1, "expected the cost line of the previous call, found another 'calls='");
    value = trim(value);
    std::size_t sp = 0;
    while (sp < value.size() && !is_blank(value[sp])) ++sp;
    std::uint64_t count = 0;
    if (!parse_u64(value.substr(0, sp), count))
      return fail(line_no_, col, fmt::format("expected 'calls=<count> <target position>', found {}",
                                             quote_input(value)));
    if (!cfn_set_) return fail(line_no_, 1, "expected 'cfn=' before 'calls=', found none");
    in_call_ = true;
    call_count_ = static_cast<std::int64_t>(std::min<std::uint64_t>(count, INT64_MAX));
    return true;
  }

  // --- functions, calls and costs -----------------------------------------

  // KCacheGrind's identity, name + object + file, as the file records it: a
  // static function may exist in two sources of one object (ld.so's
  // check_match), and valgrind names a function's file differently in its
  // own block (file of the first instruction) and in calls to it. Views that
  // want one node per function merge afterwards (merge_functions()).
  FuncId function_for(StringId name, StringId object, StringId file) {
    return functions_.find_or_add(
        FlatIndex::mix(name, object, file),
        [&](std::uint32_t f) {
          const Function& fn = p_.functions[f];
          return fn.name == name && fn.object == object && fn.file == file;
        },
        [&] {
          Function f;
          f.label = f.name = name;
          f.object = object;
          if (object != kNoString) {
            f.module = p_.strings.intern(basename_of(p_.str(object)));
            f.show_module = true;
          }
          f.file = file;
          f.calls = 0;  // callgrind knows every call: a function never called shows 0x
          return p_.add_function(f);
        });
  }

  Expected<bool> current_function(std::size_t col, FuncId& out) {
    if (current_ == kNoFunction) {
      if (!fn_set_) return fail(line_no_, col, "expected 'fn=' before the first cost line, found none");
      current_ = function_for(fn_, ob_, fl_);
    }
    out = current_;
    return true;
  }

  // Out of line, so the hot path stays small.
  [[gnu::noinline]] Error bad_position(std::string_view line, const char* at) const {
    std::size_t col = static_cast<std::size_t>(at - line.data());
    std::size_t e = col;
    while (e < line.size() && !is_blank(line[e])) ++e;
    return fail(line_no_, col + 1, fmt::format("expected a position (N, 0xN, +N, -N or *), found {}",
                                               quote_input(line.substr(col, e - col))));
  }
  [[gnu::noinline]] Error bad_cost(std::string_view line, const char* at, bool too_many) const {
    std::size_t col = static_cast<std::size_t>(at - line.data());
    std::size_t e = col;
    while (e < line.size() && !is_blank(line[e])) ++e;
    std::string_view tok = line.substr(col, e - col);
    if (too_many)
      return fail(line_no_, col + 1, fmt::format("expected at most {} cost(s), one per event, found more: {}",
                                                 columns_.size(), quote_input(tok)));
    return fail(line_no_, col + 1, fmt::format("expected an unsigned integer cost, found {}", quote_input(tok)));
  }

  // Parses one subposition at `p` (after blanks); false on a malformed one.
  static bool read_subposition(const char*& p, const char* end, std::int64_t last, std::int64_t& out) {
    if (p >= end) return false;
    char c = *p;
    if (c == '*') {
      ++p;
      out = last;
    } else if (c == '+' || c == '-') {
      const char* q = ++p;
      std::uint64_t v = 0;
      while (p < end && *p >= '0' && *p <= '9' && p - q < 18) v = v * 10 + static_cast<std::uint64_t>(*p++ - '0');
      if (p == q) return false;
      out = c == '+' ? last + static_cast<std::int64_t>(v) : last - static_cast<std::int64_t>(v);
    } else if (c == '0' && p + 1 < end && (p[1] == 'x' || p[1] == 'X')) {
      p += 2;
      const char* q = p;
      std::uint64_t v = 0;
      for (; p < end && p - q < 16; ++p) {
        int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
        if (d < 0) break;
        v = v << 4 | static_cast<std::uint64_t>(d);
      }
      if (p == q) return false;
      out = static_cast<std::int64_t>(v);
    } else {
      const char* q = p;
      std::uint64_t v = 0;
      while (p < end && *p >= '0' && *p <= '9' && p - q < 18) v = v * 10 + static_cast<std::uint64_t>(*p++ - '0');
      if (p == q) return false;
      out = static_cast<std::int64_t>(v);
    }
    return p == end || is_blank(*p);
  }

  Expected<bool> cost_line(std::string_view line) {
    if (!saw_events_ && p_.events.empty())
      return fail(line_no_, 1, "expected an 'events:' line before the first cost line, found none");
    const char* p = line.data();
    const char* end = p + line.size();
    std::uint32_t line_value = 0;
    for (int k = 0; k < positions_; ++k) {
      while (p < end && is_blank(*p)) ++p;
      const char* token = p;
      std::int64_t v;
      if (!read_subposition(p, end, last_[k], v)) return bad_position(line, token);
      last_[k] = v;
      if (k == line_position_) line_value = v < 0 ? 0 : static_cast<std::uint32_t>(std::min<std::int64_t>(v, UINT32_MAX));
    }
    // Events absent from this part's columns stay 0 in costs_; only the
    // columns this line leaves out need clearing (no memset per line).
    std::size_t column = 0;
    for (;;) {
      while (p < end && is_blank(*p)) ++p;
      if (p >= end) break;
      const char* q = p;
      std::uint64_t v = 0;
      while (p < end && *p >= '0' && *p <= '9') {
        std::uint64_t d = static_cast<std::uint64_t>(*p - '0');
        if (v > (UINT64_MAX - d) / 10) return bad_cost(line, q, false);
        v = v * 10 + d;
        ++p;
      }
      if (p == q || (p < end && !is_blank(*p))) return bad_cost(line, q, false);
      if (column >= columns_.size()) return bad_cost(line, q, true);
      costs_[columns_[column++]] = static_cast<Cost>(std::min<std::uint64_t>(v, INT64_MAX));
    }
    for (std::size_t c = column; c < columns_.size(); ++c) costs_[columns_[c]] = 0;
    file_switch_pending_ = false;
    if (in_jump_) {  // the source position of a jump: no cost
      in_jump_ = false;
      return true;
    }
    FuncId caller = kNoFunction;
    if (auto ok = current_function(1, caller); !ok) return ok;
    const std::size_t ne = p_.events.size();
    if (in_call_) {
      in_call_ = false;
      StringId callee_object = cob_set_ ? cob_ : ob_;
      FuncId callee = function_for(cfn_, callee_object, cfi_ != kNoString ? cfi_ : fl_);
      // The spec scopes cob=/cfi= to one call; gprof2dot keeps cob= until
      // the next self cost line, which decides the module of a merged
      // function in its name-only mode.
      if (!merge_by_name_) cob_set_ = false;
      cfi_ = kNoString;
      CallId c = calls_.find_or_add(
          FlatIndex::mix(caller, callee),
          [&](std::uint32_t id) { return p_.calls[id].caller == caller && p_.calls[id].callee == callee; },
          [&] { return p_.add_call({caller, callee, 0}); });
      p_.calls[c].count = saturating_add(p_.calls[c].count, call_count_);
      p_.functions[callee].calls = saturating_add(p_.functions[callee].calls, call_count_);
      for (std::size_t e = 0; e < ne; ++e) p_.inclusive(c, e) = saturating_add(p_.inclusive(c, e), costs_[e]);
      return true;
    }
    cob_set_ = false;
    if (p_.functions[caller].line == 0) p_.functions[caller].line = line_value;  // its first source line
    for (std::size_t e = 0; e < ne; ++e) p_.self(caller, e) = saturating_add(p_.self(caller, e), costs_[e]);
    if (line_position_ >= 0) {
      // A function's cost lines revisit a few source lines: a small
      // direct-mapped cache, valid for the current function only, answers
      // most lookups before the global index (whose probes miss the CPU
      // caches on large profiles).
      if (caller != cache_function_) {
        cache_function_ = caller;
        ++cache_generation_;
      }
      LineCacheEntry& slot = line_cache_[(line_value * 0x9E3779B1u ^ fi_ * 0x85EBCA6Bu) >> 23 & (kLineCache - 1)];
      if (slot.generation != cache_generation_ || slot.file != fi_ || slot.line != line_value) {
        std::uint32_t found = lines_.find_or_add(
            FlatIndex::mix(caller, fi_, line_value),
            [&](std::uint32_t r) {
              const LineCost& lc = p_.line_costs[r];
              return lc.function == caller && lc.file == fi_ && lc.line == line_value;
            },
            [&] {
              p_.line_costs.push_back({caller, fi_, line_value});
              p_.line_cost_values.resize(p_.line_cost_values.size() + ne, 0);
              return static_cast<std::uint32_t>(p_.line_costs.size() - 1);
            });
        slot = {cache_generation_, fi_, line_value, found};
      }
      last_line_row_ = slot.row;
      Cost* row = &p_.line_cost_values[static_cast<std::size_t>(last_line_row_) * ne];
      for (std::size_t e = 0; e < ne; ++e) row[e] = saturating_add(row[e], costs_[e]);
    }
    return true;
  }

  static constexpr StringId kUndefined = UINT32_MAX;

  Profile& p_;
  Diagnostics& diag_;
  bool merge_by_name_;
  std::string path_;
  std::size_t line_no_ = 0;
  std::array<std::vector<StringId>, 3> names_;
  StringId ob_, fl_, fi_, fn_, cob_, cfi_, cfn_;
  bool fn_set_ = false, cfn_set_ = false, cob_set_ = false;
  FuncId current_ = kNoFunction;
  bool in_call_ = false, in_jump_ = false;
  bool file_switch_pending_ = false;  // fi=/fe= seen since the last cost line
  std::int64_t call_count_ = 0;
  int positions_ = 1;
  int line_position_ = 0;
  std::vector<std::int64_t> last_;
  std::vector<std::uint32_t> columns_;  // cost column -> event index
  std::vector<Cost> costs_;
  bool saw_events_ = false;
  FlatIndex functions_;  // (name, object, file) -> FuncId
  FlatIndex calls_;      // (caller, callee) -> CallId
  FlatIndex lines_;
  struct LineCacheEntry {
    std::uint32_t generation = 0;
    StringId file = 0;
    std::uint32_t line = 0;
    std::uint32_t row = 0;
  };
  static constexpr std::size_t kLineCache = 512;
  std::array<LineCacheEntry, kLineCache> line_cache_{};
  std::uint32_t cache_generation_ = 0;
  FuncId cache_function_ = kNoFunction;
  std::uint32_t last_line_row_ = 0;
  std::size_t ignored_headers_ = 0;
  std::string first_ignored_;
};

}  // namespace

namespace {

struct Context {
  bool merge_by_name;
};

Expected<Profile> read_one(const InputFile& in, const void* context, Diagnostics& diag) {
  const auto& c = *static_cast<const Context*>(context);
  Profile p;
  Reader reader(p, c.merge_by_name, diag);
  if (auto ok = reader.read_file(in); !ok) return ok.error();
  reader.finish();
  if (p.events.empty())
    return bad_input(fmt::format("{}: expected an 'events:' line, found none (not a callgrind profile?)", in.path()));
  return p;
}

}  // namespace

Expected<Profile> read(const std::vector<InputFile>& inputs, bool merge_by_name, Diagnostics& diag) {
  Context c{merge_by_name};
  // Each file has its own name compression and positions: files are read on
  // two threads and added in order, as one pass over them would.
  return read_in_parallel(inputs, read_one, &c, diag);
}

}  // namespace graphgen::callgrind
