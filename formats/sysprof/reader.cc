#include "reader.h"

#include <fmt/format.h>

#include <climits>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <vector>

#include "common/xml.h"
#include "graphgen/flat_index.h"
#include "graphgen/text.h"

namespace graphgen::sysprof {

namespace {

struct Object {
  std::int64_t id = 0;
  std::string name;
  std::uint64_t self = 0;
};

struct Node {
  std::int64_t id = 0, object = 0, parent = 0;
  std::uint64_t self = 0;
};

enum class Section { kNone, kObjects, kNodes };

class Parser {
 public:
  Parser(const InputFile& in, const formats::ReadOptions& options) : in_(in), options_(options), xml_(this) {}

  Expected<bool> parse() {
    if (!xml_.unavailable().empty()) return bad_input(fmt::format("{}: {}", in_.path(), xml_.unavailable()));
    if (!xml_.parse(in_.bytes(), &in_)) {
      if (error_) return *error_;
      return bad_input(at_line(in_.path(), xml_.line(), xml_.column(),
                               fmt::format("expected well-formed XML, found {}", xml_.error_text())));
    }
    if (!saw_root_)
      return bad_input(at_end(in_.path(), in_.bytes(), "expected a <profile> element (a sysprof file), found none"));
    return true;
  }

  std::vector<Object> objects;
  std::vector<Node> nodes;

 private:
  friend struct formats::XmlCallbacks<Parser>;

  void text(const XML_Char* s, int len) {
    if (depth_ == 4 && text_.size() < (std::size_t{1} << 20)) text_.append(s, static_cast<std::size_t>(len));
  }

  void stop(std::string message) {
    if (!error_) error_ = Error{Error::Kind::kBadInput, at_line(in_.path(), xml_.line(), xml_.column(), message)};
    xml_.stop();
  }

  void start(const char* name, const char** attrs) {
    ++depth_;
    std::string_view n = name;
    if (depth_ == 1) {
      if (n != "profile") return stop(fmt::format("expected <profile> (a sysprof file), found <{}>", quote_input(n)));
      saw_root_ = true;
    } else if (depth_ == 2) {
      section_ = n == "objects" ? Section::kObjects : n == "nodes" ? Section::kNodes : Section::kNone;
    } else if (depth_ == 3 && section_ != Section::kNone) {
      std::string_view want = section_ == Section::kObjects ? "object" : "node";
      if (n != want) return stop(fmt::format("expected <{}>, found <{}>", want, quote_input(n)));
      const char* id = nullptr;
      for (const char** a = attrs; *a; a += 2)
        if (std::strcmp(a[0], "id") == 0) id = a[1];
      std::uint64_t v = 0;
      if (!id || !parse_u64(trim(id), v) || v > INT64_MAX)
        return stop(fmt::format("expected <{} id=\"number\">, found {}", want, id ? quote_input(id) : "no id"));
      item_id_ = static_cast<std::int64_t>(v);
      if (section_ == Section::kObjects) {
        objects.push_back({item_id_, {}, 0});
      } else {
        nodes.push_back({item_id_, 0, 0, 0});
      }
      if (options_.memory_budget && (objects.size() + nodes.size()) * sizeof(Object) > options_.memory_budget)
        return stop(formats::over_budget_message(in_.path(), options_.memory_budget, objects.size(), 1));
    } else if (depth_ == 4) {
      field_ = n;
      text_.clear();
    }
  }

  bool number(std::uint64_t& out) {
    if (parse_u64(trim(text_), out) && out <= INT64_MAX) return true;
    stop(fmt::format("expected a number in <{}>, found {}", field_, quote_input(trim(text_))));
    return false;
  }

  void end(const char*) {
    if (depth_ == 4 && section_ != Section::kNone) {
      std::uint64_t v = 0;
      if (section_ == Section::kObjects) {
        Object& o = objects.back();
        if (field_ == "name") {
          std::string_view t = trim(text_);
          if (t.size() >= 2 && t.front() == '"' && t.back() == '"') t = t.substr(1, t.size() - 2);
          o.name = std::string(t);
        } else if (field_ == "self") {
          if (!number(v)) return;
          o.self = v;
        }
      } else {
        Node& nd = nodes.back();
        if (field_ == "object" || field_ == "parent" || field_ == "self") {
          if (!number(v)) return;
          if (field_ == "object") nd.object = static_cast<std::int64_t>(v);
          if (field_ == "parent") nd.parent = static_cast<std::int64_t>(v);
          if (field_ == "self") nd.self = v;
        }
      }
    }
    --depth_;
  }

  const InputFile& in_;
  const formats::ReadOptions& options_;
  formats::XmlParser xml_;
  int depth_ = 0;
  bool saw_root_ = false;
  Section section_ = Section::kNone;
  std::int64_t item_id_ = 0;
  std::string field_, text_;
  std::optional<Error> error_;
};

// An error at the element `tag` of that id after `skip` others (searched
// for again: the parse keeps no positions).
Error at(const InputFile& in, const char* tag, std::int64_t id, const std::string& message, std::size_t skip = 0) {
  return bad_input(formats::at_xml_element(in.path(), in.bytes(), tag, id, message, skip));
}

}  // namespace

bool sniff(std::string_view head) {
  std::size_t at = head.find("<profile>");
  if (at == std::string_view::npos) return false;
  // Nothing but an XML declaration or comments before it.
  std::string_view before = trim(head.substr(0, at));
  if (!before.empty() && !before.starts_with("<?xml") && !before.starts_with("<!--")) return false;
  std::string_view after = head.substr(at);
  return after.find("<objects>") != std::string_view::npos || after.find("<size>") != std::string_view::npos ||
         after.find("<nodes>") != std::string_view::npos;
}

Expected<Profile> read(const InputFile& in, const formats::ReadOptions& options, Diagnostics& diag) {
  Parser parser(in, options);
  if (auto ok = parser.parse(); !ok) return ok.error();

  Profile p;
  p.label_style = LabelStyle::kName;
  p.events.push_back({p.strings.intern("samples"), p.strings.intern(""), 0, false, kNoString});
  // Objects with self samples are the functions.
  std::unordered_map<std::int64_t, std::int64_t> function_of;  // object id -> FuncId, or -1
  std::unordered_map<StringId, std::uint32_t> instances;
  for (const Object& o : parser.objects) {
    if (!function_of.try_emplace(o.id, -1).second)
      return at(in, "<object", o.id, fmt::format("expected one <object id=\"{}\">, found two", o.id), 1);
    if (o.self == 0) continue;
    Function f;
    f.name = p.strings.intern(o.name);
    f.instance = next_instance(instances[f.name]);
    FuncId id = p.add_function(f);
    p.self(id, 0) = static_cast<Cost>(o.self);
    function_of[o.id] = id;
  }
  std::unordered_map<std::int64_t, std::uint32_t> node_at;
  for (std::uint32_t i = 0; i < parser.nodes.size(); ++i)
    if (!node_at.try_emplace(parser.nodes[i].id, i).second)
      return at(in, "<node", parser.nodes[i].id,
                fmt::format("expected one <node id=\"{}\">, found two", parser.nodes[i].id), 1);
  auto sampled = [&](const Node& n) -> Expected<std::int64_t> {
    auto it = function_of.find(n.object);
    if (it == function_of.end())
      return at(in, "<node", n.id,
                fmt::format("expected a node's object among <objects>, found object {} (node {})", n.object, n.id));
    return it->second;
  };
  // The nearest ancestor with a sampled object, per node: memoised, walked
  // without recursion.
  constexpr std::int64_t kUnknown = -2, kNone = -1, kWalking = -3;
  std::vector<std::int64_t> nearest(parser.nodes.size(), kUnknown);
  std::vector<std::uint32_t> path;
  auto ancestor = [&](std::uint32_t start) -> Expected<std::int64_t> {
    path.clear();
    std::uint32_t i = start;
    std::int64_t found = kNone;
    for (;;) {
      const Node& n = parser.nodes[i];
      if (n.parent == 0) break;
      auto it = node_at.find(n.parent);
      if (it == node_at.end())
        return at(in, "<node", n.id,
                  fmt::format("expected a node's parent among <nodes>, found parent {} (node {})", n.parent, n.id));
      std::uint32_t parent = it->second;
      auto f = sampled(parser.nodes[parent]);
      if (!f) return f.error();
      if (*f >= 0) {
        found = parent;
        break;
      }
      if (nearest[parent] == kWalking)
        return at(in, "<node", n.id,
                  fmt::format("expected parent links that end, found node {} its own ancestor", n.id));
      if (nearest[parent] != kUnknown) {
        found = nearest[parent];
        break;
      }
      nearest[parent] = kWalking;
      path.push_back(parent);
      i = parent;
    }
    for (std::uint32_t k : path) nearest[k] = found;
    return found;
  };
  FlatIndex calls;
  std::size_t unsampled = 0;
  for (std::uint32_t i = 0; i < parser.nodes.size(); ++i) {
    const Node& n = parser.nodes[i];
    if (n.self == 0) continue;
    auto callee = sampled(n);
    if (!callee) return callee.error();
    auto up = ancestor(i);
    if (!up) return up.error();
    if (*up < 0) continue;  // no sampled ancestor: no call
    if (*callee < 0) {
      ++unsampled;  // samples at a node whose object has none: inconsistent
      continue;
    }
    auto from = sampled(parser.nodes[static_cast<std::size_t>(*up)]);
    FuncId caller = static_cast<FuncId>(*from);
    FuncId to = static_cast<FuncId>(*callee);
    CallId c = calls.find_or_add(
        FlatIndex::mix(caller, to),
        [&](std::uint32_t id) { return p.calls[id].caller == caller && p.calls[id].callee == to; },
        [&] {
          return p.add_call({caller, to, kUnknownCount});
        });
    p.inclusive(c, 0) = saturating_add(p.inclusive(c, 0), static_cast<Cost>(n.self));
  }
  if (unsampled)
    diag.warn(
        fmt::format("{}: {} node(s) hold samples of an object whose own count is 0; left out", in.path(), unsampled));
  return p;
}

}  // namespace graphgen::sysprof
