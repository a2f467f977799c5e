#include "pprof/reader.h"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>

#include <climits>
#include <optional>
#include <set>
#include <unordered_map>

#include "common/units.h"
#include "graphgen/analysis/stacks.h"
#include "graphgen/flat_index.h"
#include "graphgen/text.h"
#include "graphgen/utf8.h"
#include "profile.pb.h"

namespace graphgen::pprof {

namespace {

namespace pb = perftools::profiles;
using google::protobuf::io::CodedInputStream;

enum WireType : int { kVarint = 0, kFixed64 = 1, kLength = 2, kFixed32 = 5 };

// The fields of message Profile: name and wire type (-1: varint or packed).
struct FieldInfo {
  std::string_view name;
  int wire;
};
constexpr FieldInfo kFields[16] = {
    {"", -2},
    {"sample_type", kLength},
    {"sample", kLength},
    {"mapping", kLength},
    {"location", kLength},
    {"function", kLength},
    {"string_table", kLength},
    {"drop_frames", kVarint},
    {"keep_frames", kVarint},
    {"time_nanos", kVarint},
    {"duration_nanos", kVarint},
    {"period_type", kLength},
    {"period", kVarint},
    {"comment", -1},
    {"default_sample_type", kVarint},
    {"doc_url", kLength},
};

// One element of a repeated message field: where its tag is, and its bytes.
struct Span {
  std::size_t offset = 0;
  std::string_view bytes;
};

// The elements of one repeated field, 12 bytes each (a profile is under
// 2 GiB): a Span each was 24 (100 000 samples and 50 000 locations and
// functions held 7 MB of them).
class Spans {
 public:
  explicit Spans(const char* base = nullptr) : base_(base) {}
  void push_back(const Span& s) {
    items_.push_back({static_cast<std::uint32_t>(s.offset), static_cast<std::uint32_t>(s.bytes.data() - base_),
                      static_cast<std::uint32_t>(s.bytes.size())});
  }
  Span operator[](std::size_t i) const {
    const Item& e = items_[i];
    return {e.offset, std::string_view(base_ + e.begin, e.size)};
  }
  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }

 private:
  struct Item {
    std::uint32_t offset, begin, size;
  };
  const char* base_;
  std::vector<Item> items_;
};

// The top level of a Profile, each element left unparsed until the string
// table (often last) is known.
struct Raw {
  explicit Raw(const char* base)
      : sample_types(base), samples(base), mappings(base), locations(base), functions(base) {}
  Spans sample_types, samples, mappings, locations, functions;
  std::optional<Span> period_type;
  std::vector<std::string_view> strings;
  std::size_t strings_offset = 0;
  std::int64_t drop_frames = 0, keep_frames = 0, duration_nanos = 0, period = 0, default_sample_type = 0;
  std::vector<std::int64_t> comments;
};

std::string at(std::string_view path, std::size_t offset) { return fmt::format("{}:+0x{:x}", path, offset); }

// A varint field of the top level.
void store(Raw& raw, std::uint32_t field, std::int64_t value) {
  switch (field) {
    case 7:
      raw.drop_frames = value;
      break;
    case 8:
      raw.keep_frames = value;
      break;
    case 10:
      raw.duration_nanos = value;
      break;
    case 12:
      raw.period = value;
      break;
    case 13:
      raw.comments.push_back(value);
      break;
    case 14:
      raw.default_sample_type = value;
      break;
    default:
      break;
  }
}

// A length-delimited field of the top level.
void store(Raw& raw, std::uint32_t field, const Span& span) {
  switch (field) {
    case 1:
      raw.sample_types.push_back(span);
      break;
    case 2:
      raw.samples.push_back(span);
      break;
    case 3:
      raw.mappings.push_back(span);
      break;
    case 4:
      raw.locations.push_back(span);
      break;
    case 5:
      raw.functions.push_back(span);
      break;
    case 6:
      if (raw.strings.empty()) raw.strings_offset = span.offset;
      raw.strings.push_back(span.bytes);
      break;
    case 11:
      raw.period_type = span;
      break;
    case 13: {  // packed comments
      const int length = static_cast<int>(span.bytes.size());
      CodedInputStream packed(reinterpret_cast<const std::uint8_t*>(span.bytes.data()), length);
      std::uint64_t v = 0;
      while (packed.CurrentPosition() < length && packed.ReadVarint64(&v))
        raw.comments.push_back(static_cast<std::int64_t>(v));
      break;
    }
    default:
      break;
  }
}

// Walks the top-level fields; `head` only checks them (sniffing): a field
// cut by the end of the bytes ends the walk without error.
Expected<Raw> walk(std::string_view data, std::string_view path, bool head = false, std::size_t* fields = nullptr) {
  Raw raw(data.data());
  if (data.size() > INT_MAX)
    return bad_input(fmt::format("{}: a pprof profile over 2 GiB, more than protobuf reads", path));
  CodedInputStream in(reinterpret_cast<const std::uint8_t*>(data.data()), static_cast<int>(data.size()));
  std::size_t count = 0;
  for (;;) {
    const std::size_t offset = static_cast<std::size_t>(in.CurrentPosition());
    if (offset == data.size()) break;
    const std::uint32_t tag = in.ReadTag();
    const std::uint32_t field = tag >> 3;
    const int wire = static_cast<int>(tag & 7);
    if (tag == 0 || field == 0 || field >= std::size(kFields)) {
      if (head && tag == 0) break;
      return bad_input(fmt::format("{}: expected a field of a pprof Profile (1 to 15), found field {} of wire type {}",
                                   at(path, offset), tag == 0 ? 0 : field, tag == 0 ? 0 : wire));
    }
    const FieldInfo& info = kFields[field];
    if (info.wire != wire && !(info.wire == -1 && (wire == kVarint || wire == kLength)))
      return bad_input(fmt::format("{}: expected {} (field {}) as {}, found wire type {}", at(path, offset), info.name,
                                   field, info.wire == kVarint ? "a varint" : "length-delimited bytes", wire));
    if (wire == kVarint) {
      std::uint64_t v = 0;
      if (!in.ReadVarint64(&v)) {
        if (head) break;
        return bad_input(fmt::format("{}: truncated varint of {}", at(path, offset), info.name));
      }
      store(raw, field, static_cast<std::int64_t>(v));
    } else {
      std::uint32_t length = 0;
      if (!in.ReadVarint32(&length)) {
        if (head) break;
        return bad_input(fmt::format("{}: truncated length of {}", at(path, offset), info.name));
      }
      const auto begin = static_cast<std::size_t>(in.CurrentPosition());
      if (length > data.size() - begin) {
        if (head) break;
        return bad_input(fmt::format("{}: truncated {}: need {} bytes, {} left", at(path, offset), info.name, length,
                                     data.size() - begin));
      }
      const Span span{offset, data.substr(begin, length)};
      in.Skip(static_cast<int>(length));
      store(raw, field, span);
    }
    ++count;
  }
  if (fields) *fields = count;
  return raw;
}

// An element parsed with protoc's class into `m`, or the error naming its
// offset. A message parsed into again keeps its repeated fields' room: one
// for all the samples (or locations, functions) allocates nothing each.
template <class Message>
Expected<bool> parse_into(Message& m, const Span& span, std::string_view what, std::string_view path) {
  if (!m.ParseFromArray(span.bytes.data(), static_cast<int>(span.bytes.size())))
    return bad_input(fmt::format("{}: expected a pprof {}, found {} bytes that do not parse as one",
                                 at(path, span.offset), what, span.bytes.size()));
  return true;
}

template <class Message>
Expected<Message> parse(const Span& span, std::string_view what, std::string_view path) {
  Message m;
  if (auto ok = parse_into(m, span, what, path); !ok) return ok.error();
  return m;
}

// A table's rows by the ids the profile gives them (1 to n as pprof writes
// them, but any 64-bit number but 0 is valid): 8 bytes of id and 16 of
// index a row, where std::unordered_map allocated a node of each.
template <class Row>
class ById {
 public:
  // False when a row has that id already.
  bool add(std::uint64_t id, const Row& row) {
    bool fresh = false;
    index_.find_or_add(
        FlatIndex::mix(id), [&](std::uint32_t r) { return ids_[r] == id; },
        [&] {
          fresh = true;
          ids_.push_back(id);
          rows_.push_back(row);
          return static_cast<std::uint32_t>(rows_.size() - 1);
        });
    return fresh;
  }
  // The row of `id`, or null; stable once every row is added.
  const Row* find(std::uint64_t id) const {
    const std::int64_t r = index_.find(FlatIndex::mix(id), [&](std::uint32_t k) { return ids_[k] == id; });
    return r < 0 ? nullptr : &rows_[static_cast<std::size_t>(r)];
  }
  std::vector<Row>& rows() { return rows_; }

 private:
  FlatIndex index_;
  std::vector<std::uint64_t> ids_;
  std::vector<Row> rows_;
};

// Reading one profile: the tables, and the stacks into the model.
class Reader {
 public:
  Reader(const Raw& raw, std::string_view path, const formats::ReadOptions& options, Diagnostics& diag)
      : raw_(raw), path_(path), options_(options), diag_(diag) {}

  Expected<Profile> read() {
    if (raw_.strings.empty() || !raw_.strings[0].empty())
      return bad_input(fmt::format("{}: expected a string table whose first string is empty, found {}",
                                   at(path_, raw_.strings_offset),
                                   raw_.strings.empty() ? "no string table" : quote_input(raw_.strings[0])));
    if (raw_.sample_types.empty())
      return bad_input(fmt::format("{}:+0x0: expected sample types (field 1), found none", path_));
    if (auto ok = events(); !ok) return ok.error();
    if (auto ok = mappings(); !ok) return ok.error();
    if (auto ok = functions(); !ok) return ok.error();
    if (auto ok = locations(); !ok) return ok.error();
    if (auto ok = prune(); !ok) return ok.error();
    if (auto ok = samples(); !ok) return ok.error();
    metadata();
    return std::move(p_);
  }

 private:
  // A pprof function: its name (or system name) and file, as indexes of
  // the string table.
  struct Named {
    std::uint32_t name = 0, file = 0;
    std::int64_t line = 0;
  };
  // A location's frames_ [begin, end), and what drop_frames does to it.
  struct Loc {
    std::uint32_t begin = 0, end = 0;
    bool prune = false, beneath = false;
  };

  // The bytes of the elements parsed so far, told to the read's progress a
  // megabyte at a time (the tables are parsed in another order than the
  // file's, so by amount, not by position).
  void parsed(const Span& span) {
    parsed_ += span.bytes.size();
    if (parsed_ < (std::size_t{1} << 20)) return;
    detail::count_passed(parsed_);
    parsed_ = 0;
  }

  Expected<std::string_view> str(std::int64_t index, const Span& where, std::string_view what) const {
    if (index < 0 || static_cast<std::uint64_t>(index) >= raw_.strings.size())
      return bad_input(fmt::format("{}: {} names string {}, but the string table has {}", at(path_, where.offset), what,
                                   index, raw_.strings.size()));
    return raw_.strings[static_cast<std::size_t>(index)];
  }

  // One event per sample type, the default one first.
  Expected<bool> events() {
    std::vector<Event> list;
    std::size_t first = raw_.sample_types.size() - 1;
    for (std::size_t i = 0; i < raw_.sample_types.size(); ++i) {
      auto vt = parse<pb::ValueType>(raw_.sample_types[i], "ValueType (sample_type)", path_);
      if (!vt) return vt.error();
      auto type = str(vt->type(), raw_.sample_types[i], "the sample type");
      if (!type) return type.error();
      auto unit = str(vt->unit(), raw_.sample_types[i], "the sample type's unit");
      if (!unit) return unit.error();
      if (raw_.default_sample_type != 0 && vt->type() == raw_.default_sample_type) first = i;
      Event e;
      e.name = p_.strings.intern(*type);
      e.unit = p_.strings.intern(*unit);
      e.seconds_per_unit = formats::seconds_per_tick(*unit);
      list.push_back(e);
    }
    order_.push_back(first);
    for (std::size_t i = 0; i < list.size(); ++i)
      if (i != first) order_.push_back(i);
    std::vector<Event> ordered;
    for (std::size_t i : order_) ordered.push_back(list[i]);
    builder_.emplace(p_, ordered, options_.keep_stacks);
    return true;
  }

  Expected<bool> mappings() {
    for (std::size_t i = 0; i < raw_.mappings.size(); ++i) {
      const Span span = raw_.mappings[i];
      parsed(span);
      auto m = parse<pb::Mapping>(span, "Mapping", path_);
      if (!m) return m.error();
      auto file = str(m->filename(), span, "the mapping");
      if (!file) return file.error();
      if (!mapping_.try_emplace(m->id(), *file).second)
        return bad_input(fmt::format("{}: mapping {} is defined twice", at(path_, span.offset), m->id()));
    }
    return true;
  }

  Expected<bool> functions() {
    pb::Function f;
    for (std::size_t i = 0; i < raw_.functions.size(); ++i) {
      const Span span = raw_.functions[i];
      parsed(span);
      if (auto ok = parse_into(f, span, "Function", path_); !ok) return ok.error();
      auto name = str(f.name(), span, "the function");
      if (!name) return name.error();
      auto system = str(f.system_name(), span, "the function's system name");
      if (!system) return system.error();
      auto file = str(f.filename(), span, "the function's file");
      if (!file) return file.error();
      // (Each index checked by str() above.)
      const Named n{static_cast<std::uint32_t>(name->empty() ? f.system_name() : f.name()),
                    static_cast<std::uint32_t>(f.filename()), f.start_line()};
      if (!function_.add(f.id(), n))
        return bad_input(fmt::format("{}: function {} is defined twice", at(path_, span.offset), f.id()));
    }
    return true;
  }

  // The model's function for (name, file, object, line). Its strings are
  // interned first: a function met before has them already, and a new
  // one's are interned in the order they always were (name, file, object),
  // so every string keeps its id.
  FuncId function(std::string_view name, std::string_view file, std::string_view object, std::int64_t line,
                  bool unresolved) {
    const StringId name_id = p_.strings.intern(name);
    const StringId file_id = file.empty() ? kNoString : p_.strings.intern(file);
    const StringId object_id = p_.strings.intern(object);
    return functions_.find_or_add(
        FlatIndex::mix(std::uint64_t{name_id} << 32 | file_id, object_id, static_cast<std::uint64_t>(line)),
        [&](std::uint32_t id) {
          const Function& f = p_.functions[id];
          return f.name == name_id && f.file == file_id && f.object == object_id && f.line == line;
        },
        [&] {
          Function f;
          f.name = name_id;
          f.file = file_id;
          f.object = object_id;
          f.has_object = !object.empty();
          f.line = line;
          f.unresolved = unresolved;
          return p_.add_function(f);
        });
  }

  // A frame no symbol was found for: as pprof shows it, one function per
  // mapping, `[libc.so.6]` (by address when the mapping has no file).
  FuncId unresolved(std::uint64_t address, std::string_view object) {
    if (object.empty()) return function(fmt::format("0x{:x}", address), {}, object, 0, true);
    const std::size_t slash = object.rfind('/');
    return function(fmt::format("[{}]", slash == std::string_view::npos ? object : object.substr(slash + 1)), {},
                    object, 0, true);
  }

  // Each location's frames, innermost first (an inlined function before
  // the one it was inlined into).
  Expected<bool> locations() {
    pb::Location l;
    for (std::size_t i = 0; i < raw_.locations.size(); ++i) {
      const Span span = raw_.locations[i];
      parsed(span);
      if (auto ok = parse_into(l, span, "Location", path_); !ok) return ok.error();
      std::string_view object;
      if (l.mapping_id() != 0) {
        auto m = mapping_.find(l.mapping_id());
        if (m == mapping_.end())
          return bad_input(fmt::format("{}: location {} refers to mapping {}, which the profile does not define",
                                       at(path_, span.offset), l.id(), l.mapping_id()));
        object = m->second;
      }
      const auto begin = static_cast<std::uint32_t>(frames_.size());
      for (const pb::Line& line : l.line()) {
        const Named* n = function_.find(line.function_id());
        if (!n)
          return bad_input(fmt::format("{}: location {} refers to function {}, which the profile does not define",
                                       at(path_, span.offset), l.id(), line.function_id()));
        const std::string_view name = raw_.strings[n->name];
        frames_.push_back(name.empty() ? unresolved(l.address(), object)
                                       : function(name, raw_.strings[n->file], object, n->line, false));
        frame_names_.push_back(n->name);
      }
      if (l.line().empty()) {
        frames_.push_back(unresolved(l.address(), object));
        frame_names_.push_back(0);
      }
      if (!location_.add(l.id(), Loc{begin, static_cast<std::uint32_t>(frames_.size())}))
        return bad_input(fmt::format("{}: location {} is defined twice", at(path_, span.offset), l.id()));
    }
    return true;
  }

  Expected<bool> samples() {
    std::vector<FuncId> stack;
    std::vector<const Loc*> locs;
    std::vector<Cost> weights(order_.size());
    std::set<std::string_view> label_keys;
    std::size_t labelled = 0, empty = 0;
    std::int64_t empty_value = 0;
    pb::Sample s;
    for (std::size_t k = 0; k < raw_.samples.size(); ++k) {
      const Span span = raw_.samples[k];
      parsed(span);
      if (auto ok = parse_into(s, span, "Sample", path_); !ok) return ok.error();
      if (static_cast<std::size_t>(s.value_size()) != order_.size())
        return bad_input(fmt::format("{}: expected {} value{} in sample {} (one per sample type), found {}",
                                     at(path_, span.offset), order_.size(), order_.size() == 1 ? "" : "s", k,
                                     s.value_size()));
      for (std::size_t e = 0; e < order_.size(); ++e) weights[e] = s.value(static_cast<int>(order_[e]));
      stack.clear();
      locs.clear();
      for (std::uint64_t id : s.location_id()) {
        const Loc* l = location_.find(id);
        if (!l)
          return bad_input(fmt::format("{}: sample {} refers to location {}, which the profile does not define",
                                       at(path_, span.offset), k, id));
        locs.push_back(l);
      }
      for (std::size_t j = first_kept(locs); j < locs.size(); ++j) {
        for (std::uint32_t i = locs[j]->begin; i < locs[j]->end; ++i) {
          const FuncId f = frames_[i];
          // A run of frames of one library without symbols is one frame.
          if (!stack.empty() && stack.back() == f && p_.functions[f].unresolved) continue;
          stack.push_back(f);
        }
      }
      std::string_view process;
      bool other_labels = false;
      for (const pb::Label& label : s.label()) {
        auto key = str(label.key(), span, "a label");
        if (!key) return key.error();
        if (*key == "process" && label.str() != 0) {
          auto value = str(label.str(), span, "the label process");
          if (!value) return value.error();
          process = *value;
        } else {
          label_keys.insert(*key);
          other_labels = true;
        }
      }
      labelled += other_labels;
      if (stack.empty()) {
        ++empty;
        empty_value += weights[0];
        continue;
      }
      builder_->add_sample(stack, weights.data(), process);
      if (options_.memory_budget && k % 1024 == 0 && p_.approximate_bytes() > options_.memory_budget)
        return bad_input(
            formats::over_budget_message(path_, options_.memory_budget, p_.functions.size(), p_.events.size()));
    }
    if (options_.memory_budget && p_.approximate_bytes() > options_.memory_budget)
      return bad_input(
          formats::over_budget_message(path_, options_.memory_budget, p_.functions.size(), p_.events.size()));
    if (empty)
      diag_.warn(fmt::format("{}: {} samples have no stack and are left out ({} {} of {})", path_, empty, empty_value,
                             p_.str(p_.events[0].unit), p_.str(p_.events[0].name)));
    if (labelled) {
      std::string keys;
      for (std::string_view key : label_keys) keys += (keys.empty() ? "" : ", ") + std::string(key);
      diag_.warn(fmt::format("{}: labels of {} samples are left out (graphgen keeps no labels but process): {}", path_,
                             labelled, printable_utf8(keys)));
    }
    return true;
  }

  // drop_frames and keep_frames, as pprof's Profile.Prune applies them:
  // in each location the outermost line whose function matches drop (and
  // not keep) goes with the lines inlined into it (the whole location when
  // it is the outermost line); a stack loses the frames below the first
  // such location under a frame of the program's own.
  Expected<bool> prune() {
    if (raw_.drop_frames == 0) return true;
    auto drop = str(raw_.drop_frames, Span{}, "drop_frames");
    if (!drop) return drop.error();
    auto keep = raw_.keep_frames ? str(raw_.keep_frames, Span{}, "keep_frames") : std::string_view();
    if (!keep) return keep.error();
    std::vector<std::string_view> drops, keeps;
    if (!simple_pattern(*drop, drops) || !simple_pattern(*keep, keeps)) {
      diag_.warn(fmt::format(
          "{}: drop_frames {} is not applied: graphgen applies patterns of names and .* only (pprof prunes the "
          "frames they match, and their callees, from each stack)",
          path_, quote_input(*drop)));
      return true;
    }
    for (Loc& loc : location_.rows()) {
      for (std::uint32_t i = loc.end; i-- > loc.begin;) {
        if (raw_.strings[frame_names_[i]].empty()) continue;
        const std::string name = simplified(raw_.strings[frame_names_[i]]);
        if (!matches(drops, name) || (!keeps.empty() && matches(keeps, name))) continue;
        loc.beneath = true;
        if (i + 1 == loc.end)
          loc.prune = true;
        else
          loc.begin = i + 1;
        break;
      }
    }
    return true;
  }

  // Where a stack (leaf first) starts once pruned: past the first pruned
  // location under a frame of the program's own, counted from the root.
  static std::size_t first_kept(const std::vector<const Loc*>& locs) {
    bool user = false;
    for (std::size_t i = locs.size(); i-- > 0;) {
      if (!locs[i]->prune && !locs[i]->beneath) {
        user = true;
        continue;
      }
      if (!user) continue;
      return locs[i]->prune ? i + 1 : i;
    }
    return 0;
  }

  // A regular expression that is names and .* joined by | (what real
  // profiles carry, e.g. gperftools' `ProfileData::Add|...|__restore`):
  // its alternatives; false for anything else.
  static bool simple_pattern(std::string_view pattern, std::vector<std::string_view>& out) {
    if (pattern.empty()) return true;
    for (std::size_t start = 0;;) {
      std::size_t bar = pattern.find('|', start);
      std::string_view alt =
          pattern.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
      for (std::size_t i = 0; i < alt.size(); ++i) {
        if (alt.substr(i, 2) == ".*") {
          ++i;
          continue;
        }
        if (std::string_view("\\^$.*+?()[]{}").find(alt[i]) != std::string_view::npos) return false;
      }
      out.push_back(alt);
      if (bar == std::string_view::npos) return true;
      start = bar + 1;
    }
  }

  // The whole of `name` matches one alternative (.* any run of bytes).
  static bool matches(const std::vector<std::string_view>& alternatives, std::string_view name) {
    for (std::string_view alt : alternatives) {
      // Greedy wildcard matching with one backtrack point: linear in
      // practice, at most name x pattern.
      std::size_t n = 0, a = 0, star_a = std::string_view::npos, star_n = 0;
      while (n < name.size()) {
        if (alt.substr(a, 2) == ".*") {
          star_a = a += 2;
          star_n = n;
        } else if (a < alt.size() && alt[a] == name[n]) {
          ++a;
          ++n;
        } else if (star_a != std::string_view::npos) {
          a = star_a;
          n = ++star_n;
        } else {
          break;
        }
      }
      while (alt.substr(a, 2) == ".*") a += 2;
      if (n == name.size() && a == alt.size()) return true;
    }
    return false;
  }

  // pprof's simplifyFunc: no leading '.', nothing from the first '(' that
  // is not part of `(anonymous namespace)` or `operator()`.
  static std::string simplified(std::string_view name) {
    if (name.starts_with('.')) name.remove_prefix(1);
    for (std::size_t at = name.find('('); at != std::string_view::npos; at = name.find('(', at + 1)) {
      if (name.substr(at).starts_with("(anonymous namespace)")) continue;
      if (at >= 8 && name.substr(at - 8).starts_with("operator()")) continue;
      return std::string(name.substr(0, at));
    }
    return std::string(name);
  }

  void metadata() {
    auto text = [&](std::int64_t i) {
      return i >= 0 && static_cast<std::uint64_t>(i) < raw_.strings.size() ? raw_.strings[static_cast<std::size_t>(i)]
                                                                           : std::string_view();
    };
    for (std::int64_t c : raw_.comments)
      p_.metadata.emplace_back(p_.strings.intern("comment"), p_.strings.intern(text(c)));
    if (raw_.period_type && raw_.period) {
      pb::ValueType vt;
      if (vt.ParseFromArray(raw_.period_type->bytes.data(), static_cast<int>(raw_.period_type->bytes.size())))
        p_.metadata.emplace_back(
            p_.strings.intern("period"),
            p_.strings.intern(fmt::format("{} {} of {}", raw_.period, text(vt.unit()), text(vt.type()))));
    }
    if (raw_.duration_nanos > 0)
      p_.metadata.emplace_back(p_.strings.intern("duration"),
                               p_.strings.intern(fmt::format("{:.9g} s", raw_.duration_nanos * 1e-9)));
  }

  const Raw& raw_;
  std::string_view path_;
  const formats::ReadOptions& options_;
  Diagnostics& diag_;
  Profile p_;
  std::optional<detail::StackBuilder> builder_;
  std::vector<std::size_t> order_;  // event k is sample value order_[k]
  std::unordered_map<std::uint64_t, std::string_view> mapping_;
  ById<Named> function_;
  ById<Loc> location_;
  std::vector<FuncId> frames_;
  std::vector<std::uint32_t> frame_names_;  // pprof's name of each frame, in the string table ("": none)
  std::size_t parsed_ = 0;                  // bytes parsed, not yet counted for the progress
  FlatIndex functions_;                     // the model's functions, by their identity
};

}  // namespace

bool sniff(std::string_view head) {
  // Every field of the head (the last may be cut) of a Profile's numbers
  // and wire types, and a sample type or a sample among them: text and
  // other binary formats break the walk within a few bytes.
  if (head.size() < 8) return false;
  std::size_t fields = 0;
  auto raw = walk(head, {}, true, &fields);
  return raw && fields >= 3 && (!raw->sample_types.empty() || !raw->samples.empty());
}

Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  auto raw = walk(input.bytes(), input.path());
  if (!raw) return raw.error();
  return Reader(*raw, input.path(), options, diag).read();
}

}  // namespace graphgen::pprof
