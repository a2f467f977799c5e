#include "tracemalloc/reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "common/pickle.h"
#include "common/python_text.h"
#include "graphgen/analysis/stacks.h"
#include "graphgen/text.h"

namespace graphgen::tracemalloc {

namespace {

constexpr std::string_view kDescription = "tracemalloc snapshot";

// The classes a snapshot names, and nothing else.
const pickle::Allowed& allowed() {
  static const pickle::Allowed kSnapshot = {{{"tracemalloc", "Snapshot"}, {"tracemalloc", "_Traces"}},
                                            "only tracemalloc's Snapshot and _Traces may appear in a snapshot"};
  return kSnapshot;
}

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
    const std::size_t end = text.find_first_of("(: \t\r\n");
    if (end != 0 && end != std::string_view::npos) return text.substr(0, end);
  }
  return {};
}

// The def or class enclosing each of `queries` (1-based lines of `lines`,
// sorted): the nearest line above indented less than every code line
// between, and so on outwards, until a def or class ("<module>" when none
// is; empty for a line not in the file). One pass down the file keeps the
// chain of such lines (each indented less than the one after it): a
// frame's chain is its part indented less than the frame's own line.
std::vector<std::string> enclosing(const formats::SourceText& lines, const std::vector<std::int64_t>& queries) {
  std::vector<std::string> out(queries.size());
  std::vector<std::pair<std::size_t, std::size_t>> chain;  // (indent, 0-based line)
  std::size_t next = 0;                                    // the next line to put on the chain
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const std::int64_t line = queries[q];
    if (line < 1 || line > static_cast<std::int64_t>(lines.lines())) continue;
    for (; next + 1 < static_cast<std::size_t>(line); ++next) {
      const std::string_view text = lines.line(next);
      if (!code_line(text)) continue;
      const std::size_t indent = indent_of(text);
      while (!chain.empty() && chain.back().first >= indent) chain.pop_back();
      chain.emplace_back(indent, next);
    }
    std::size_t limit = indent_of(lines.line(static_cast<std::size_t>(line - 1)));
    out[q] = "<module>";
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

class Reader {
 public:
  Reader(const InputFile& in, const formats::ReadOptions& options, Diagnostics& diag, const pickle::Document& doc)
      : in_(in), options_(options), diag_(diag), doc_(doc), frame_of_(doc.nodes.size(), UINT32_MAX) {}

  Expected<Profile> run() {
    auto traces = trace_list();
    if (!traces) return traces.error();
    Event size, count;
    size.name = p_.strings.intern("bytes");
    size.unit = p_.strings.intern("bytes");
    count.name = p_.strings.intern("blocks");
    count.unit = p_.strings.intern("blocks");
    // (The tree always: -T stats groups by whole tracebacks.)
    detail::StackBuilder builder(p_, {size, count}, true);
    std::vector<FuncId> frames;
    std::size_t frameless = 0, seen = 0, cut = 0;
    for (std::uint32_t t : doc_.items(**traces)) {
      const pickle::Node& trace = doc_.node(t);
      const auto fields = doc_.items(trace);
      if (trace.type != pickle::Type::kTuple || fields.size() < 3 || fields.size() > 4)
        return error(trace,
                     fmt::format("expected a trace (domain, size, frames[, total_nframe]), found {}", describe(trace)));
      const pickle::Node& bytes = doc_.node(fields[1]);
      const pickle::Node& stack = doc_.node(fields[2]);
      if (bytes.type != pickle::Type::kInt || bytes.i < 0)
        return error(bytes, fmt::format("expected a trace's size (an int of 0 or more), found {}", describe(bytes)));
      if (stack.type != pickle::Type::kTuple)
        return error(stack, fmt::format("expected a trace's frames (a tuple), found {}", describe(stack)));
      // Cut at the traceback limit: total_nframe says so (3.9+), else a
      // traceback as long as the limit may be.
      const auto stack_items = doc_.items(stack);
      const pickle::Node* total = fields.size() == 4 ? &doc_.node(fields[3]) : nullptr;
      if (total ? total->type == pickle::Type::kInt && total->i > static_cast<std::int64_t>(stack_items.size())
                : limit_ > 0 && static_cast<std::int64_t>(stack_items.size()) >= limit_)
        ++cut;
      const Cost w[2] = {bytes.i, 1};
      // tracemalloc shares one tuple among the traces of one traceback
      // (pickle's memo keeps it one object): the first adds its frames,
      // the others add to the same cells.
      const std::uint32_t shared = fields[2];
      if (auto known = replays_.find(shared); known != replays_.end()) {
        if (!known->second.valid) {
          ++frameless;
          continue;
        }
        builder.replay(known->second, w);
      } else {
        frames.clear();
        for (std::uint32_t f : stack_items) {
          auto id = frame(f);
          if (!id) return id.error();
          frames.push_back(*id);
        }
        detail::StackBuilder::Replay& r = replays_[shared];
        if (frames.empty()) {
          ++frameless;
          continue;
        }
        builder.add_sample(frames, w, {}, r);
      }
      if (options_.memory_budget && ++seen % 4096 == 0 && p_.approximate_bytes() > options_.memory_budget)
        return bad_input(formats::over_budget_message(in_.path(), options_.memory_budget, p_.functions.size(), 2));
    }
    if (frameless > 0)
      diag_.warn(
          fmt::format("{}: {} trace(s) have no frame and are left out (tracemalloc's statistics cannot "
                      "group them either)",
                      in_.path(), frameless));
    if (cut > 0)
      diag_.warn(
          fmt::format("{}: {} of {} traces were cut at the traceback limit of {} frames: their stacks start "
                      "part-way (start tracemalloc with more frames, tracemalloc.start(N), for whole stacks)",
                      in_.path(), cut, doc_.items(**traces).size(), limit_));
    name_functions();
    p_.metadata.emplace_back(p_.strings.intern("desc"),
                             p_.strings.intern(fmt::format("{} (traceback limit {})", kDescription, limit_)));
    return std::move(p_);
  }

 private:
  Error error(const pickle::Node& at, std::string message) const {
    return bad_input(fmt::format("{}:+0x{:x}: {}", in_.path(), at.offset, message));
  }

  std::string describe(const pickle::Node& n) const {
    if (n.type == pickle::Type::kTuple) return fmt::format("a tuple of {}", doc_.items(n).size());
    if (n.type == pickle::Type::kInt) return fmt::format("the int {}", n.i);
    return pickle::a_type(n.type);
  }

  // The value of `key` in a dict of str keys, or null.
  const pickle::Node* member(const pickle::Node& dict, std::string_view key) const {
    const auto items = doc_.items(dict);
    for (std::size_t k = 0; k + 1 < items.size(); k += 2) {
      const pickle::Node& name = doc_.node(items[k]);
      if (name.type == pickle::Type::kStr && doc_.text(name) == key) return &doc_.node(items[k + 1]);
    }
    return nullptr;
  }

  // The state dict of an object of class `cls`.
  Expected<const pickle::Node*> state_of(const pickle::Node& n, std::string_view cls) const {
    const bool is_object = n.type == pickle::Type::kObject;
    const bool object = is_object && doc_.text(doc_.node(n.object.cls)) == cls;
    if (!object || n.object.state == UINT32_MAX || doc_.node(n.object.state).type != pickle::Type::kDict)
      return error(
          n, fmt::format("expected a {} object with its state, found {}", cls,
                         is_object ? "a " + std::string(doc_.text(doc_.node(n.object.cls))) + " object" : describe(n)));
    return &doc_.node(n.object.state);
  }

  // Snapshot.traces._traces, and the traceback limit on the way.
  Expected<const pickle::Node*> trace_list() {
    auto snapshot = state_of(doc_.node(doc_.root), "tracemalloc.Snapshot");
    if (!snapshot) return snapshot.error();
    const pickle::Node* traces = member(**snapshot, "traces");
    if (!traces) return error(**snapshot, "expected a Snapshot's 'traces', found none");
    if (const pickle::Node* limit = member(**snapshot, "traceback_limit"); limit && limit->type == pickle::Type::kInt)
      limit_ = limit->i;
    auto holder = state_of(*traces, "tracemalloc._Traces");
    if (!holder) return holder.error();
    const pickle::Node* list = member(**holder, "_traces");
    if (!list || (list->type != pickle::Type::kList && list->type != pickle::Type::kTuple))
      return error(**holder, "expected _Traces' '_traces' (a list of traces), found none");
    return list;
  }

  // The function of a frame (filename, lineno), once per pickle object and
  // once per (filename, lineno).
  Expected<FuncId> frame(std::uint32_t index) {
    if (index < frame_of_.size() && frame_of_[index] != UINT32_MAX) return frame_of_[index];
    const pickle::Node& n = doc_.node(index);
    const auto items = doc_.items(n);
    const bool pair = n.type == pickle::Type::kTuple && items.size() == 2;
    if (!pair || doc_.node(items[0]).type != pickle::Type::kStr || doc_.node(items[1]).type != pickle::Type::kInt ||
        doc_.node(items[1]).i < 0)
      return error(n, fmt::format("expected a frame (filename, lineno), found {}", describe(n)));
    const std::string_view file = doc_.text(doc_.node(items[0]));
    const std::int64_t line = doc_.node(items[1]).i;
    key_.assign(file).append(1, '\0').append(std::to_string(line));
    auto [it, fresh] = functions_.try_emplace(key_, 0);
    if (fresh) {
      Function fn;
      fn.file = p_.strings.intern(file);
      fn.line = line;
      it->second = p_.add_function(fn);
    }
    if (index < frame_of_.size()) frame_of_[index] = it->second;
    return it->second;
  }

  // Each function's name: basename:def:line where the source can be read
  // (each file read once, its functions named in one pass down it).
  void name_functions() {
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
      const std::vector<std::string> defs =
          readable ? enclosing(source, lines) : std::vector<std::string>(lines.size());
      const std::string_view base = short_name(file);
      for (std::size_t k = 0; k < functions.size(); ++k) {
        Function& fn = p_.functions[functions[k]];
        fn.name = p_.strings.intern(defs[k].empty() ? fmt::format("{}:{}", base, fn.line)
                                                    : fmt::format("{}:{}:{}", base, defs[k], fn.line));
      }
    }
  }

  // The file's name, with its package for a package's __init__.py or
  // __main__.py (json/__init__.py).
  static std::string_view short_name(std::string_view file) {
    const std::string_view base = basename_of(file);
    if ((base != "__init__.py" && base != "__main__.py") || base.size() + 1 >= file.size()) return base;
    const std::size_t slash = file.rfind('/', file.size() - base.size() - 2);
    return slash == std::string_view::npos ? file : file.substr(slash + 1);
  }

  static std::string_view dir_of(std::string_view path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? std::string_view(".") : path.substr(0, slash);
  }

  const InputFile& in_;
  const formats::ReadOptions& options_;
  Diagnostics& diag_;
  const pickle::Document& doc_;
  Profile p_;
  std::vector<FuncId> frame_of_;
  std::unordered_map<std::string, FuncId> functions_;
  std::unordered_map<std::uint32_t, detail::StackBuilder::Replay> replays_;  // by the frames tuple's node
  std::string key_;
  std::int64_t limit_ = 0;
};

}  // namespace

bool sniff(std::string_view head) {
  if (head.size() < 2 || static_cast<unsigned char>(head[0]) != 0x80 || head[1] < 2 || head[1] > 5) return false;
  const std::string_view start = head.substr(0, 64);
  return start.find("tracemalloc") != std::string_view::npos && start.find("Snapshot") != std::string_view::npos;
}

Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  auto doc = pickle::decode(input.bytes(), input.path(), allowed());
  if (!doc) return doc.error();
  return Reader(input, options, diag, *doc).run();
}

bool is_snapshot(const Profile& p) {
  for (const auto& [k, v] : p.metadata)
    if (p.str(k) == "desc" && p.str(v).starts_with(kDescription)) return true;
  return false;
}

}  // namespace graphgen::tracemalloc
