#include "tracemalloc/builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "common/python_text.h"
#include "graphgen/text.h"

namespace graphgen::tracemalloc {

namespace {

constexpr std::string_view kDescription = "tracemalloc snapshot";

// Python's indentation of a line: tabs to the next multiple of 8.
std::size_t indent_of(std::string_view line) {
  std::size_t col = 0;
  for (char c : line) {
    if (c == ' ')
      ++col;
    else if (c == '\t')
      col = (col / 8 + 1) * 8;
    else if (c == '\f')
      col = 0;
    else
      break;
  }
  return col;
}

// A line that starts a block's header or statement: not blank, not a comment.
bool code_line(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size() && (text[start] == ' ' || text[start] == '\t' || text[start] == '\f')) ++start;
  return start < text.size() && text[start] != '\n' && text[start] != '\r' && text[start] != '#';
}

// The name a def or class line defines, or empty for another line.
std::string_view defined_name(std::string_view text) {
  text.remove_prefix(std::min(text.find_first_not_of(" \t\f"), text.size()));
  if (text.starts_with("async ")) text.remove_prefix(std::min(text.find_first_not_of(' ', 6), text.size()));
  for (std::string_view kw : {"def ", "class "}) {
    if (!text.starts_with(kw)) continue;
    text.remove_prefix(std::min(text.find_first_not_of(' ', kw.size()), text.size()));
    const std::size_t end = text.find_first_of("([: \t\r\n");  // (`class C[T](Base):`, PEP 695)
    if (end != 0 && end != std::string_view::npos) return text.substr(0, end);
  }
  return {};
}

// The def or class enclosing each of `queries` (1-based lines of `lines`,
// sorted): the nearest statement above indented less than every statement
// between, and so on outwards, until a def or class ("<module>" when none
// is; empty for a line not in the file). One pass down the file keeps the
// chain of such statements (each indented less than the one after it): a
// frame's chain is its part indented less than the frame's statement.
// Statements are logical lines (formats::LogicalLines): a line inside a
// string, brackets or after a backslash only continues one, whatever its
// indentation (a message's second line at column 0 is not a statement of
// the module), and a frame on such a line (Python 3.11 numbers a call's own
// line) is in the statement it continues.
std::vector<std::string> enclosing(const formats::SourceText& lines, const std::vector<std::int64_t>& queries) {
  std::vector<std::string> out(queries.size());
  std::vector<std::pair<std::size_t, std::size_t>> chain;  // (indent, 0-based line)
  std::size_t next = 0;                                    // the next line to put on the chain
  formats::LogicalLines logical;
  std::size_t statement_indent = 0;  // the indentation of the last statement's first line
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const std::int64_t line = queries[q];
    if (line < 1 || line > static_cast<std::int64_t>(lines.lines())) continue;
    for (; next + 1 < static_cast<std::size_t>(line); ++next) {
      const std::string_view text = lines.line(next);
      const bool continues = logical.inside();
      logical.next(text);
      if (continues || !code_line(text)) continue;
      const std::size_t indent = indent_of(text);
      statement_indent = indent;
      while (!chain.empty() && chain.back().first >= indent) chain.pop_back();
      chain.emplace_back(indent, next);
    }
    std::size_t limit = indent_of(lines.line(static_cast<std::size_t>(line - 1)));
    out[q] = "<module>";
    if (logical.inside()) {
      // Within a def's own header (its parameters' defaults over several
      // lines) is within the def, as the AST spans it; else in the scope
      // of the statement it continues.
      // (The statement went on the chain when it started; checked all the
      // same: the file is anyone's.)
      if (std::string_view name = chain.empty() ? std::string_view() : defined_name(lines.line(chain.back().second));
          !name.empty()) {
        out[q] = std::string(name);
        continue;
      }
      limit = statement_indent;
    }
    for (std::size_t k = chain.size(); k-- > 0 && limit > 0;) {
      if (chain[k].first >= limit) continue;
      limit = chain[k].first;
      if (std::string_view name = defined_name(lines.line(chain[k].second)); !name.empty()) {
        out[q] = std::string(name);
        break;
      }
    }
  }
  return out;
}

// The file's name, with its package for a package's __init__.py or
// __main__.py (json/__init__.py).
std::string_view short_name(std::string_view file) {
  const std::string_view base = basename_of(file);
  if ((base != "__init__.py" && base != "__main__.py") || base.size() + 1 >= file.size()) return base;
  const std::size_t slash = file.rfind('/', file.size() - base.size() - 2);
  return slash == std::string_view::npos ? file : file.substr(slash + 1);
}

std::string_view dir_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view(".") : path.substr(0, slash);
}

Event event(Profile& p, std::string_view name) {
  Event e;
  e.name = p.strings.intern(name);
  e.unit = e.name;
  return e;
}

}  // namespace

std::string_view description() { return kDescription; }

// The callsite tree for every output but a graph (-T stats groups by whole
// tracebacks, and asks for positions, not stacks).
SnapshotBuilder::SnapshotBuilder(const InputFile& in, const formats::ReadOptions& options)
    : in_(in),
      options_(options),
      builder_(p_, {event(p_, "bytes"), event(p_, "blocks")}, options.keep_stacks || !options.graph_only) {
  // Room for every frame the input can hold (two bytes at least each):
  // growing by doubling held the old array beside the new, the read's peak.
  // Room not used costs no memory (only address space: reservable()).
  frames_.reserve(reservable_count<FuncId>(in.bytes().size() / 2 + 16));
}

FuncId SnapshotBuilder::function(StringId name, std::int64_t line) {
  return functions_.find_or_add(
      FlatIndex::mix(name, static_cast<std::uint64_t>(line)),
      [&](std::uint32_t f) { return p_.functions[f].file == name && p_.functions[f].line == line; },
      [&] {
        Function fn;
        fn.file = name;
        fn.line = line;
        return p_.add_function(fn);
      });
}

bool SnapshotBuilder::trace(std::uint32_t traceback, const std::vector<FuncId>& frames, Cost bytes) {
  const Cost w[2] = {bytes, 1};
  // The first trace of a traceback adds its frames; the others' bytes and
  // blocks are summed and added to the same cells once, at the end (whole
  // numbers: the same sums in any order).
  Traceback& t = tracebacks_[traceback];
  if (t.seen) {
    if (t.count == 0) {
      ++frameless_;
      return true;
    }
    t.pending[0] = p_.add(0, t.pending[0], bytes);
    t.pending[1] = p_.add(1, t.pending[1], 1);
  } else {
    t.seen = true;
    if (frames.empty()) {
      ++frameless_;
      return true;
    }
    builder_.add_sample(frames, w);
    t.count = static_cast<std::uint32_t>(frames.size());
    t.begin = frames_.size();
    frames_.insert(frames_.end(), frames.begin(), frames.end());
  }
  return within_budget();
}

bool SnapshotBuilder::only_trace(const std::vector<FuncId>& frames, Cost bytes) {
  if (frames.empty()) {
    ++frameless_;
    return true;
  }
  const Cost w[2] = {bytes, 1};
  builder_.add_sample(frames, w);
  return within_budget();
}

bool SnapshotBuilder::within_budget() {
  return !(options_.memory_budget && ++counted_ % 4096 == 0 && p_.approximate_bytes() > options_.memory_budget);
}

Error SnapshotBuilder::over_budget() const {
  return bad_input(formats::over_budget_message(in_.path(), options_.memory_budget, p_.functions.size(), 2));
}

Profile SnapshotBuilder::finish(std::size_t traces, Diagnostics& diag) {
  for (const Traceback& t : tracebacks_) {
    if (t.pending[1] == 0) continue;
    const auto first = frames_.begin() + static_cast<std::ptrdiff_t>(t.begin);
    scratch_.assign(first, first + t.count);
    builder_.add_sample(scratch_, t.pending.data());
  }
  // Cut at the traceback limit: total_nframe says so (3.9+), else a
  // traceback as long as the limit may be.
  if (limit_ > 0)
    for (auto it = no_total_.lower_bound(static_cast<std::size_t>(limit_)); it != no_total_.end(); ++it)
      cut_ += it->second;
  if (frameless_ > 0)
    diag.warn(
        fmt::format("{}: {} trace(s) have no frame and are left out (tracemalloc's statistics cannot "
                    "group them either)",
                    in_.path(), frameless_));
  if (cut_ > 0)
    diag.warn(
        fmt::format("{}: {} of {} traces were cut at the traceback limit of {} frames: their stacks start "
                    "part-way (start tracemalloc with more frames, tracemalloc.start(N), for whole stacks)",
                    in_.path(), cut_, traces, limit_));
  name_functions();
  p_.metadata.emplace_back(p_.strings.intern("desc"),
                           p_.strings.intern(fmt::format("{} (traceback limit {})", kDescription, limit_)));
  return std::move(p_);
}

// Each function's name: basename:def:line where the source can be read
// (each file read once, its functions named in one pass down it).
void SnapshotBuilder::name_functions() {
  std::unordered_map<std::string_view, std::vector<FuncId>> by_file;
  for (FuncId f = 0; f < p_.functions.size(); ++f) by_file[p_.str(p_.functions[f].file)].push_back(f);
  const std::string beside(dir_of(in_.path()));
  std::vector<std::int64_t> lines;
  for (auto& [name, functions] : by_file) {
    const std::string file(name);
    formats::SourceText source;
    bool readable = false;
    if (!file.starts_with('<')) {
      readable = formats::read_source(file, {}, source);
      if (!readable && !file.starts_with('/') && !beside.empty())
        readable = formats::read_source(beside + "/" + file, {}, source);
    }
    std::sort(functions.begin(), functions.end(),
              [&](FuncId a, FuncId b) { return p_.functions[a].line < p_.functions[b].line; });
    lines.clear();
    for (FuncId f : functions) lines.push_back(p_.functions[f].line);
    const std::vector<std::string> defs = readable ? enclosing(source, lines) : std::vector<std::string>(lines.size());
    const std::string_view base = short_name(file);
    for (std::size_t k = 0; k < functions.size(); ++k) {
      Function& fn = p_.functions[functions[k]];
      fn.name = p_.strings.intern(defs[k].empty() ? fmt::format("{}:{}", base, fn.line)
                                                  : fmt::format("{}:{}:{}", base, defs[k], fn.line));
    }
  }
}

}  // namespace graphgen::tracemalloc
