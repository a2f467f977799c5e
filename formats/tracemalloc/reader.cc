#include "tracemalloc/reader.h"

#include <fmt/format.h>

#include <unordered_map>
#include <vector>

#include "common/pickle.h"
#include "tracemalloc/builder.h"

namespace graphgen::tracemalloc {

namespace {

// The classes a snapshot names, and nothing else.
const pickle::Allowed& allowed() {
  static const pickle::Allowed kSnapshot = {{{"tracemalloc", "Snapshot"}, {"tracemalloc", "_Traces"}},
                                            "only tracemalloc's Snapshot and _Traces may appear in a snapshot"};
  return kSnapshot;
}

class Reader {
 public:
  Reader(const InputFile& in, const formats::ReadOptions& options, Diagnostics& diag, const pickle::Document& doc)
      : in_(in), options_(options), diag_(diag), doc_(doc), frame_of_(doc.nodes.size(), UINT32_MAX) {}

  Expected<Profile> run() {
    auto traces = trace_list();
    if (!traces) return traces.error();
    SnapshotBuilder out(in_, options_);
    out.set_limit(limit_);
    std::vector<FuncId> frames;
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
      const auto stack_items = doc_.items(stack);
      if (fields.size() == 3)
        out.uncertain(stack_items.size());
      else if (const pickle::Node& total = doc_.node(fields[3]);
               total.type == pickle::Type::kInt && total.i > static_cast<std::int64_t>(stack_items.size()))
        out.cut();
      // tracemalloc shares one tuple among the traces of one traceback
      // (pickle's memo keeps it one object).
      auto [known, fresh] = traceback_of_.try_emplace(fields[2], 0);
      if (fresh) known->second = out.new_traceback();
      frames.clear();
      if (!out.seen(known->second))
        for (std::uint32_t f : stack_items) {
          auto id = frame(out, f);
          if (!id) return id.error();
          frames.push_back(*id);
        }
      if (!out.trace(known->second, frames, bytes.i)) return out.over_budget();
    }
    return out.finish(doc_.items(**traces).size(), diag_);
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
  Expected<FuncId> frame(SnapshotBuilder& out, std::uint32_t index) {
    if (index < frame_of_.size() && frame_of_[index] != UINT32_MAX) return frame_of_[index];
    const pickle::Node& n = doc_.node(index);
    const auto items = doc_.items(n);
    const bool pair = n.type == pickle::Type::kTuple && items.size() == 2;
    if (!pair || doc_.node(items[0]).type != pickle::Type::kStr || doc_.node(items[1]).type != pickle::Type::kInt ||
        doc_.node(items[1]).i < 0)
      return error(n, fmt::format("expected a frame (filename, lineno), found {}", describe(n)));
    const FuncId id = out.function(doc_.text(doc_.node(items[0])), doc_.node(items[1]).i);
    if (index < frame_of_.size()) frame_of_[index] = id;
    return id;
  }

  const InputFile& in_;
  const formats::ReadOptions& options_;
  Diagnostics& diag_;
  const pickle::Document& doc_;
  std::vector<FuncId> frame_of_;
  std::unordered_map<std::uint32_t, std::uint32_t> traceback_of_;  // by the frames tuple's node
  std::int64_t limit_ = 0;
};

}  // namespace

bool sniff(std::string_view head) {
  if (head.size() < 2 || static_cast<unsigned char>(head[0]) != 0x80 || head[1] < 2 || head[1] > 5) return false;
  const std::string_view start = head.substr(0, 64);
  return start.find("tracemalloc") != std::string_view::npos && start.find("Snapshot") != std::string_view::npos;
}

Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  if (auto streamed = read_streaming(input, options, diag)) return std::move(*streamed);
  return read_general(input, options, diag);
}

Expected<Profile> read_general(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  auto doc = pickle::decode(input.bytes(), input.path(), allowed());
  if (!doc) return doc.error();
  return Reader(input, options, diag, *doc).run();
}

bool is_snapshot(const Profile& p) {
  for (const auto& [k, v] : p.metadata)
    if (p.str(k) == "desc" && p.str(v).starts_with(description())) return true;
  return false;
}

}  // namespace graphgen::tracemalloc
