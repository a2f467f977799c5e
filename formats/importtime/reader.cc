#include "importtime/reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <vector>

#include "graphgen/analysis/stacks.h"
#include "graphgen/text.h"

namespace graphgen::importtime {

namespace {

constexpr std::string_view kPrefix = "import time:";
// 10^15 µs: 31 years, more than any import takes.
constexpr std::uint64_t kMostMicroseconds = 1'000'000'000'000'000;

// (Rows are counted in 32 bits: run() refuses more.)
constexpr std::uint32_t kNoRow = UINT32_MAX;

// One line: a module's import. "cached" (3.14's -X importtime=2: already
// imported) costs nothing. Its own time is its cumulative time less its
// imports' (the log's own column is checked, not kept: each is rounded on
// its own), known when the line is read, since its imports' lines come
// before it; its importer comes after (kNoRow: the program itself, or
// none in the log).
struct Row {
  Cost own;
  StringId name;
  std::uint32_t importer;
};

// A line read whose importer has not come yet, at nesting `level` (0:
// imported by the program itself, never waiting).
struct Waiting {
  std::uint64_t cumulative;
  std::uint32_t row, level;
};

// A field of spaces, a number (or "cached") and spaces, then '|'; `at` is
// left after the '|'. False with `at` where the field went wrong (at the
// number that is not one, or at what stands where '|' should).
bool field(std::string_view line, std::size_t& at, std::uint64_t& out) {
  while (at < line.size() && line[at] == ' ') ++at;
  if (line.substr(at).starts_with("cached")) {
    out = 0;
    at += 6;
  } else {
    auto [end, ec] = std::from_chars(line.data() + at, line.data() + line.size(), out);
    if (ec != std::errc() || out > kMostMicroseconds) return false;
    at = static_cast<std::size_t>(end - line.data());
  }
  while (at < line.size() && line[at] == ' ') ++at;
  if (at >= line.size() || line[at] != '|') return false;
  ++at;
  return true;
}

class Reader {
 public:
  Reader(const InputFile& in, const formats::ReadOptions& options, Diagnostics& diag)
      : in_(in), options_(options), diag_(diag) {}

  Expected<Profile> run() {
    // Room for the shortest lines the file could hold ("import time: 0|0|
    // a", 19 bytes) up to 4 Mi rows, then doubling: untouched, it costs no
    // memory, where doubling held the rows twice over for a moment.
    rows_.reserve(reservable_count<Row>(std::min<std::size_t>(in_.bytes().size() / 19 + 1, std::size_t{1} << 22)));
    LineScanner lines(in_.bytes(), &in_);
    std::string_view line;
    std::size_t n = 0;
    while (lines.next(line)) {
      ++n;
      if (lines.at_end() && !in_.bytes().ends_with('\n')) {
        // stderr cut short (the program killed, head -c): the last record
        // may have lost digits or the end of its name.
        diag_.warn(cut_last_line(in_.path(), n, line));
        break;
      }
      if (auto ok = one(line, n); !ok) return ok.error();
      if (rows_.size() >= UINT32_MAX)
        return bad_input(at_line(in_.path(), n, 1, "expected at most 4294967294 imports, found more"));
      if (options_.memory_budget && rows_.size() * sizeof(Row) > options_.memory_budget)
        return bad_input(formats::over_budget_message(in_.path(), options_.memory_budget, rows_.size(), 1));
    }
    if (rows_.empty())
      return bad_input(at_end(in_.path(), in_.bytes(),
                              "expected lines of 'import time: SELF | CUMULATIVE | MODULE' "
                              "(python -X importtime), found none"));
    orphans_ += waiting_.size();  // (the log ended inside their importers)
    waiting_ = std::vector<Waiting>();
    build();
    return std::move(p_);
  }

 private:
  Expected<bool> one(std::string_view line, std::size_t n) {
    if (line.starts_with(kPrefix)) return record(line, n);
    // The program's own stderr, or its output without a newline before a
    // record (unittest's dots, a partial print): the record is read from its
    // prefix on; where the words begin no record, the line is the program's.
    const std::size_t from = line.find(kPrefix);
    if (from != std::string_view::npos) (void)record(line.substr(from), n);  // (a row only when whole)
    return true;
  }

  // `line` begins with the prefix.
  Expected<bool> record(std::string_view line, std::size_t n) {
    std::size_t at = kPrefix.size();
    const std::string_view rest = line.substr(at);
    if (rest.find_first_not_of(' ') != std::string_view::npos &&
        rest.substr(rest.find_first_not_of(' ')).starts_with("self [us]"))
      return true;  // the header (once per process)
    std::uint64_t self = 0, cumulative = 0;
    if (!field(line, at, self))
      return bad_input(at_line(in_.path(), n, at + 1,
                               fmt::format("expected the import's own time in microseconds, then '|', found {}",
                                           quote_input(line.substr(at)))));
    if (!field(line, at, cumulative))
      return bad_input(at_line(in_.path(), n, at + 1,
                               fmt::format("expected its cumulative time in microseconds, then '|', found {}",
                                           quote_input(line.substr(at)))));
    // One space, then two per level.
    std::size_t name_at = at + 1;
    while (name_at < line.size() && line[name_at] == ' ') ++name_at;
    std::string_view name = line.substr(std::min(name_at, line.size()));
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
    if (at >= line.size() || line[at] != ' ' || name.empty())
      return bad_input(at_line(in_.path(), n, std::min(name_at, line.size()) + 1,
                               name.empty()
                                   ? std::string("expected a module's name, found the end of the line")
                                   : fmt::format("expected ' ' after '|', found {}", quote_input(line.substr(at)))));
    if ((name_at - at - 1) % 2 != 0)
      return bad_input(at_line(
          in_.path(), n, name_at + 1,
          fmt::format("expected the module's name indented by two spaces a level, found {} spaces", name_at - at - 1)));
    add_row(cumulative, p_.strings.intern(name), static_cast<std::uint32_t>((name_at - at - 1) / 2));
    return true;
  }

  // The lines waiting one level deeper are this one's imports; any deeper
  // still are imports whose importer the log lacks (the levels between are
  // unknown): shown as imported by the program.
  void add_row(std::uint64_t cumulative, StringId name, std::uint32_t level) {
    const auto row = static_cast<std::uint32_t>(rows_.size());
    std::uint64_t inner = 0;
    while (!waiting_.empty() && waiting_.back().level > level) {  // (levels rise towards the back)
      const Waiting& w = waiting_.back();
      if (w.level == level + 1) {
        rows_[w.row].importer = row;
        inner += w.cumulative;
      } else {
        ++orphans_;
      }
      waiting_.pop_back();
    }
    if (inner > cumulative) ++short_rows_;
    rows_.push_back(Row{static_cast<Cost>(cumulative - std::min(inner, cumulative)), name, kNoRow});
    if (level > 0) waiting_.push_back(Waiting{cumulative, row, level});
  }

  // Each row a sample: its stack the row and its importers out to the
  // program, its own time the sample's.
  void build() {
    const std::size_t count = rows_.size();
    Event time;
    time.name = p_.strings.intern("time");
    time.unit = p_.strings.intern("microseconds");
    time.seconds_per_unit = 1e-6;
    detail::StackBuilder builder(p_, std::vector<Event>{time}, options_.keep_stacks);
    // Room made once: each distinct name interned so far is one module's
    // function (a few strings more), and most modules are imported from one
    // place, one call each. Grown by doubling, the tables were faulted in
    // twice over (208 000 modules: 5 000 of 29 000 page faults, 10 % of
    // the time).
    p_.reserve(p_.strings.size(), p_.strings.size());
    builder.reserve_calls(p_.strings.size());
    p_.label_style = LabelStyle::kName;
    std::vector<FuncId> stack;
    std::vector<std::uint32_t> imports;  // per function (fewer than the rows)
    imports.reserve(p_.strings.size());  // (a function a name at most)
    // A module's function by its interned name: made the first time the
    // walks below meet it (the numbering the builder's lookup by name gave,
    // as each walk met it), found again by the name's id, without hashing
    // the name a second time (the builder's index was a fifth of the read).
    constexpr FuncId kNotYet = UINT32_MAX;
    std::vector<FuncId> function_of_name(p_.strings.size(), kNotYet);
    auto function_of = [&](std::size_t row) {
      FuncId& f = function_of_name[rows_[row].name];
      if (f == kNotYet) {
        Function fn;  // (what the builder makes of a name: no object, no process)
        fn.name = rows_[row].name;
        f = p_.add_function(fn);
      }
      return f;
    };
    for (std::size_t i = 0; i < count; ++i) {
      stack.clear();
      for (std::size_t at = i; at != kNoRow; at = rows_[at].importer) stack.push_back(function_of(at));
      builder.add_sample(stack, &rows_[i].own);
      imports.resize(p_.functions.size(), 0);
      ++imports[stack[0]];
    }
    // Calls: how many times the log says each module was imported.
    for (FuncId f = 0; f < p_.functions.size(); ++f)
      p_.functions[f].calls = p_.functions[f].primitive_calls = static_cast<std::int64_t>(imports[f]);
    if (orphans_)
      diag_.warn(
          fmt::format("{}: {} imports have no importer in the log (the program ended, or its output was cut, "
                      "inside an import): they are shown as imported by the program",
                      in_.path(), orphans_));
    if (short_rows_)
      diag_.warn(
          fmt::format("{}: {} imports took less cumulative time than their own imports (each is rounded up on "
                      "its own); their own time is 0",
                      in_.path(), short_rows_));
  }

  const InputFile& in_;
  const formats::ReadOptions& options_;
  Diagnostics& diag_;
  Profile p_;
  std::vector<Row> rows_;
  std::vector<Waiting> waiting_;  // by level, rising
  std::size_t orphans_ = 0, short_rows_ = 0;
};

}  // namespace

bool sniff(std::string_view head) {
  LineScanner lines(head);
  std::string_view line;
  for (int i = 0; i < 16 && lines.next(line); ++i) {
    if (!line.starts_with(kPrefix)) continue;
    std::size_t at = kPrefix.size();
    std::uint64_t v = 0;
    return line.find("self [us] | cumulative | imported package") != std::string_view::npos ||
           (field(line, at, v) && field(line, at, v));
  }
  return false;
}

Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  return Reader(input, options, diag).run();
}

}  // namespace graphgen::importtime
