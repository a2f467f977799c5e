#include "reader.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "common/json_doc.h"
#include "common/json_scan.h"
#include "graphgen/analysis/stacks.h"

namespace graphgen::json {

namespace {

namespace od = simdjson::ondemand;

struct Event {
  std::uint32_t first = 0, size = 0;  // in Reader::chain_
  double cost = 0;
};

// Where `doc`'s iterator stands in the text starting at `base` (the next
// token's first byte), or `otherwise` when it cannot say.
std::size_t offset_in(od::document& doc, const char* base, std::size_t otherwise) {
  const char* at = nullptr;
  if (base && doc.current_location().get(at) == simdjson::SUCCESS && at >= base)
    return static_cast<std::size_t>(at - base);
  return otherwise;
}

class Reader : formats::JsonCursor {
 public:
  Reader(const InputFile& in, const formats::ReadOptions& options) : in_(in), options_(options) {}

  // The streaming path: true when the file was read, then build() makes
  // the profile; false leaves it to read_general(), with a fresh Reader.
  //
  // simdjson's index holds 4 bytes for each token of the whole document
  // before the first is read: 2x the input for the events' short numbers,
  // which with the file and the chains made the peak 3.6x the input. Here
  // the root's members are taken one at a time: "events", nearly all of
  // the bytes, is read element by element by the few rules below (the
  // events of gprof2dot's and graphgen's writers: "callchain" and "cost",
  // of plain numbers), and each other member's value alone is handed
  // to simdjson. Anything else (another member or key, a cost that is not
  // a number, an escape in a key, a number these rules do not take, any error) gives up,
  // and the general path reads the whole document again and owns every
  // message: the streaming path accepts a subset of what it accepts and
  // reads it to the same profile (tests and the fuzz target compare them).
  bool stream() {
    text_ = in_.bytes();
    pos_ = 0;
    space();
    if (!eat('{')) return false;
    bool version = false, costs_seen = false, functions = false, events = false;
    if (!object([&](std::string_view key) {
          if (key == "events") {
            if (events || !stream_events()) return false;
            events = true;
          } else if (key == "version") {
            if (version || !eat('0') || (pos_ < text_.size() && !is_end_of_scalar(text_[pos_]))) return false;
            version = true;
          } else if (key == "costs" || key == "functions") {
            bool& seen = key == "costs" ? costs_seen : functions;
            if (seen || !member_alone(key)) return false;
            seen = true;
          } else {
            return false;
          }
          return !(options_.memory_budget && bytes() > options_.memory_budget);
        }))
      return false;
    space();
    return pos_ == text_.size() && version && functions && events;
  }

  Expected<Profile> read_general(Diagnostics& diag) {
    formats::PaddedInput text(in_);
    base_ = text.data();
    od::parser parser;
    od::document doc;
    if (auto e = parser.iterate(text.view()).get(doc); e) return fail(nullptr, "a JSON document", e);
    od::object root;
    if (auto e = doc.get_object().get(root); e) return fail(&doc, "a JSON object {\"version\": 0, ...}", e);
    bool version = false, functions = false, events = false;
    for (auto field : root) {
      std::string_view key;
      if (auto e = field.unescaped_key().get(key); e) return fail(&doc, "a member name", e);
      od::value value = field.value();
      if (key == "version") {
        const std::size_t at = here(doc);
        std::int64_t v = 0;
        if (auto e = value.get_int64().get(v); e) return fail(&doc, "\"version\": 0", e);
        if (v != 0) return bad_at(at, fmt::format("expected \"version\": 0, found version {}", v));
        version = true;
      } else if (key == "costs") {
        if (auto ok = costs(doc, value); !ok) return ok.error();
      } else if (key == "functions") {
        if (auto ok = function_list(doc, value); !ok) return ok.error();
        functions = true;
      } else if (key == "events") {
        if (auto ok = event_list(doc, value); !ok) return ok.error();
        events = true;
      }
      if (options_.memory_budget && bytes() > options_.memory_budget)
        return bad_input(formats::over_budget_message(in_.path(), options_.memory_budget, names_.size(), 1));
    }
    for (auto [present, what] :
         {std::pair{version, "\"version\""}, std::pair{functions, "\"functions\""}, std::pair{events, "\"events\""}})
      if (!present)
        return bad_at(formats::closing_brace(in_.bytes()),
                      fmt::format("expected the member {} (gprof2dot's JSON schema), found none", what));
    return build(diag);
  }

 private:
  struct Fn {
    std::string name, module, process;
    bool has_module = false, has_process = false;
  };

  std::size_t bytes() const {
    return names_.size() * sizeof(Fn) + chain_.size() * sizeof(std::uint32_t) + events_.size() * sizeof(Event);
  }

  // Where `doc`'s iterator stands in the input, or the input's end.
  std::size_t here(od::document& doc) const { return offset_in(doc, base_, in_.bytes().size()); }
  // file:+0xOFF: MESSAGE.
  Error bad_at(std::size_t offset, std::string_view message) const {
    return bad_input(fmt::format("{}:+0x{:x}: {}", in_.path(), offset, message));
  }

  // file:+0xOFF: expected WHAT, found simdjson's reason.
  Error fail(od::document* doc, std::string_view what, simdjson::error_code e) const {
    std::size_t offset = doc ? offset_in(*doc, base_, 0) : 0;
    if (formats::JsonDocument::cut_short(e)) offset = in_.bytes().size();
    std::string found = simdjson::error_message(e);
    if (e == simdjson::INCORRECT_TYPE) found = "a value of another type";
    std::string_view rest = in_.bytes().substr(std::min(offset, in_.bytes().size()));
    std::string_view token = rest.substr(0, std::min(rest.find_first_of(",]} \t\r\n"), std::size_t{40}));
    if (token == "NaN" || token == "Infinity" || token == "-Infinity")
      found = quote_input(token) + ", which is not JSON (costs must be finite numbers)";
    else if (e == simdjson::NUMBER_ERROR)
      found = quote_input(token) + ", a number beyond a double (costs must be finite numbers)";
    return Error{Error::Kind::kBadInput,
                 fmt::format("{}:+0x{:x}: expected {}, found {}", in_.path(), offset, what, one_line(found))};
  }

  Expected<bool> costs(od::document& doc, od::value value) {
    od::array list;
    if (auto e = value.get_array().get(list); e) return fail(&doc, "\"costs\": [{\"description\": ...}]", e);
    for (auto item : list) {
      od::object cost;
      if (auto e = item.get_object().get(cost); e) return fail(&doc, "a cost {\"description\": ...}", e);
      if (!event_name_.empty()) continue;  // only the first cost is read
      for (auto f : cost) {
        std::string_view key, s;
        if (auto e = f.unescaped_key().get(key); e) return fail(&doc, "a member name", e);
        if (key != "description" && key != "unit") continue;
        if (auto e = f.value().get_string().get(s); e) return fail(&doc, "a string", e);
        (key == "description" ? event_name_ : event_unit_) = std::string(s);
      }
      if (event_name_.empty()) event_name_ = "cost";
    }
    return true;
  }

  Expected<bool> function_list(od::document& doc, od::value value) {
    od::array list;
    if (auto e = value.get_array().get(list); e) return fail(&doc, "\"functions\": [{\"name\": ...}, ...]", e);
    for (auto item : list) {
      const std::size_t at = here(doc);
      od::object obj;
      if (auto e = item.get_object().get(obj); e) return fail(&doc, "a function {\"name\": ...}", e);
      Fn fn;
      bool named = false;
      for (auto f : obj) {
        std::string_view key, s;
        if (auto e = f.unescaped_key().get(key); e) return fail(&doc, "a member name", e);
        if (key != "name" && key != "module" && key != "process") continue;
        if (auto e = f.value().get_string().get(s); e) return fail(&doc, "a string", e);
        if (key == "name") {
          fn.name = std::string(s);
          named = true;
        } else if (key == "module") {
          fn.module = std::string(s);
          fn.has_module = true;
        } else {
          fn.process = std::string(s);
          fn.has_process = true;
        }
      }
      if (!named)
        return bad_at(at, fmt::format("expected \"name\" in function {} of \"functions\", found none", names_.size()));
      names_.push_back(std::move(fn));
      if (options_.memory_budget && (names_.size() & 4095) == 0 && bytes() > options_.memory_budget)
        return bad_input(formats::over_budget_message(in_.path(), options_.memory_budget, names_.size(), 1));
    }
    return true;
  }

  Expected<bool> event_list(od::document& doc, od::value value) {
    od::array list;
    if (auto e = value.get_array().get(list); e)
      return fail(&doc, "\"events\": [{\"callchain\": [...], \"cost\": [...]}, ...]", e);
    for (auto item : list) {
      const std::size_t at = here(doc);
      od::object obj;
      if (auto e = item.get_object().get(obj); e) return fail(&doc, "an event {\"callchain\": ..., \"cost\": ...}", e);
      Event ev;
      ev.first = static_cast<std::uint32_t>(chain_.size());
      bool has_chain = false, has_cost = false;
      for (auto f : obj) {
        std::string_view key;
        if (auto e = f.unescaped_key().get(key); e) return fail(&doc, "a member name", e);
        if (key == "callchain") {
          od::array chain;
          if (auto e = f.value().get_array().get(chain); e) return fail(&doc, "\"callchain\": [function, ...]", e);
          for (auto x : chain) {
            const std::size_t x_at = here(doc);
            double v = 0;
            if (auto e = x.get_double().get(v); e) return fail(&doc, "a function position", e);
            if (!(v >= 0 && v < 4294967295.0 && v == std::floor(v)))
              return bad_at(x_at, fmt::format("expected function positions in event {}'s callchain, found {}",
                                              events_.size() + empty_chains_, v));
            chain_.push_back(static_cast<std::uint32_t>(v));
          }
          has_chain = true;
        } else if (key == "cost") {
          const std::size_t costs_at = here(doc);
          od::array costs;
          if (auto e = f.value().get_array().get(costs); e) return fail(&doc, "\"cost\": [number, ...]", e);
          for (auto x : costs) {
            if (has_cost) continue;  // gprof2dot uses the first
            od::number n;
            if (auto e = x.get_number().get(n); e) return fail(&doc, "a cost (a number)", e);
            double v = n.as_double();
            if (!std::isfinite(v)) return fail(&doc, "a finite cost", simdjson::NUMBER_ERROR);
            if (!n.is_int64() && !n.is_uint64()) integral_ = false;
            if (n.is_uint64()) integral_ = integral_ && n.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX);
            ev.cost = v;
            has_cost = true;
          }
          if (!has_cost)
            return bad_at(costs_at, fmt::format("expected a number in event {}'s \"cost\", found an empty list",
                                                events_.size() + empty_chains_));
        }
      }
      if (!has_chain || !has_cost)
        return bad_at(at, fmt::format("expected \"callchain\" and \"cost\" in event {}, found {} alone",
                                      events_.size() + empty_chains_,
                                      has_chain  ? "\"callchain\""
                                      : has_cost ? "\"cost\""
                                                 : "neither"));
      ev.size = static_cast<std::uint32_t>(chain_.size() - ev.first);
      if (ev.size == 0) {
        ++empty_chains_;
        continue;
      }
      events_.push_back(ev);
      if (options_.memory_budget && (events_.size() & 4095) == 0 && bytes() > options_.memory_budget)
        return bad_input(formats::over_budget_message(in_.path(), options_.memory_budget, names_.size(), 1));
    }
    return true;
  }

 public:
  /// The profile of what was read.
  Expected<Profile> build(Diagnostics& diag) {
    Profile p;
    p.label_style = LabelStyle::kNameUnderObject;
    detail::StackBuilder builder(p, event_name_.empty() ? "cost" : event_name_, event_unit_, options_.keep_stacks,
                                 !integral_);
    std::unordered_map<std::string, std::uint32_t> instances;
    for (const Fn& fn : names_) {
      Function f;
      f.name = p.strings.intern(fn.name);
      f.object = p.strings.intern(fn.module);
      f.has_object = fn.has_module;
      if (fn.has_process) f.process = p.strings.intern(fn.process);
      // Same name, module and process at two positions: two functions.
      f.instance =
          next_instance(instances[fn.name + '\0' + fn.module + '\0' + fn.process + (fn.has_process ? "p" : "")]);
      f.calls = 0;
      p.add_function(f);
    }
    std::vector<FuncId> stack;
    for (std::size_t i = 0; i < events_.size(); ++i) {
      const Event& ev = events_[i];
      stack.assign(chain_.begin() + ev.first, chain_.begin() + ev.first + ev.size);
      for (FuncId f : stack)
        if (f >= p.functions.size()) {
          const auto [at, event] = locate(i, f);
          return bad_at(at, fmt::format("expected positions of \"functions\" (0 to {}) in event {}'s callchain, "
                                        "found {}",
                                        static_cast<std::int64_t>(p.functions.size()) - 1, event, f));
        }
      ++p.functions[stack.front()].calls;
      builder.add_sample(stack, builder.cost(ev.cost));
    }
    if (empty_chains_)
      diag.warn(fmt::format("{}: {} event(s) with an empty callchain were left out", in_.path(), empty_chains_));
    return p;
  }

 private:
  // Where the callchain of the `kept`-th event with a callchain names `f`,
  // and that event's place among all the events: read again, as only an
  // error needs it (the events keep no offsets). The input's end, and
  // `kept`, when the document does not read so far.
  std::pair<std::size_t, std::size_t> locate(std::size_t kept, FuncId f) const {
    std::pair<std::size_t, std::size_t> found{in_.bytes().size(), kept};
    formats::PaddedInput text(in_);
    od::parser parser;
    od::document doc;
    od::object root;
    if (parser.iterate(text.view()).get(doc) || doc.get_object().get(root)) return found;
    for (auto field : root) {
      std::string_view key;
      if (field.unescaped_key().get(key)) return found;
      if (key != "events") continue;
      od::array events;
      if (field.value().get_array().get(events)) return found;
      std::size_t index = 0, with_chain = 0;
      for (auto item : events) {
        od::object event;
        if (item.get_object().get(event)) return found;
        bool any = false;
        for (auto member : event) {
          if (member.unescaped_key().get(key)) return found;
          if (key != "callchain") continue;
          od::array chain;
          if (member.value().get_array().get(chain)) return found;
          for (auto x : chain) {
            any = true;
            const std::size_t x_at = offset_in(doc, text.data(), in_.bytes().size());
            double v = 0;
            if (x.get_double().get(v)) return found;
            if (with_chain == kept && v == static_cast<double>(f)) return {x_at, index};
          }
        }
        with_chain += any;
        ++index;
        if (with_chain > kept) return found;
      }
      return found;
    }
    return found;
  }

  // ---- The streaming path's rules ----
  // A cost: a JSON number (JsonCursor::json_number).
  bool cost_number(double& out) {
    bool fractional = false;
    if (!json_number(out, fractional)) return false;
    if (fractional) integral_ = false;
    return true;
  }
  bool stream_events() {
    return eat('[') && items([&] {
             if (!stream_event()) return false;
             passed_.at(pos_);
             return true;
           }) &&
           eat(']');
  }
  bool stream_event() {
    if (!eat('{')) return false;
    Event ev;
    ev.first = static_cast<std::uint32_t>(chain_.size());
    bool has_chain = false, has_cost = false;
    if (!object([&](std::string_view key) {
          if (key == "callchain" && !has_chain) {
            has_chain = true;
            return eat('[') && items([&] {
                     std::uint32_t f = 0;
                     if (!json_index(f, UINT32_MAX - 1)) return false;
                     chain_.push_back(f);
                     return true;
                   }) &&
                   eat(']');
          }
          if (key == "cost" && !has_cost) {
            has_cost = true;
            // The first cost is read; those of the other kinds, numbers, are passed over.
            bool first = true;
            return eat('[') && items([&] {
                     bool fractional = false;
                     if (!first) return number_token(fractional);
                     first = false;
                     return cost_number(ev.cost);
                   }) &&
                   !first && eat(']');
          }
          return false;
        }))
      return false;
    if (!has_chain || !has_cost) return false;
    ev.size = static_cast<std::uint32_t>(chain_.size() - ev.first);
    if (ev.size == 0) {
      ++empty_chains_;
      return true;
    }
    events_.push_back(ev);
    return !(options_.memory_budget && (events_.size() & 4095) == 0 && bytes() > options_.memory_budget);
  }
  // "costs" or "functions": its value alone through simdjson, with the
  // general path's rules.
  bool member_alone(std::string_view key) {
    const std::size_t begin = pos_;
    if (!skip_value() || pos_ == begin) return false;
    const std::string_view value = text_.substr(begin, pos_ - begin);
    const std::size_t readable = text_.size() - pos_ + in_.readable_after_end();
    formats::PaddedInput padded(value, readable);
    od::parser parser;
    od::document doc;
    if (parser.iterate(padded.view()).get(doc)) return false;
    od::value v;
    if (doc.get_value().get(v)) return false;
    auto ok = key == "costs" ? costs(doc, v) : function_list(doc, v);
    return static_cast<bool>(ok);
  }

  const InputFile& in_;
  const formats::ReadOptions& options_;
  PassedPages passed_{&in_};
  const char* base_ = nullptr;
  std::string event_name_, event_unit_;
  std::vector<Fn> names_;
  std::vector<std::uint32_t> chain_;
  std::vector<Event> events_;
  bool integral_ = true;
  std::size_t empty_chains_ = 0;
};

}  // namespace

bool sniff(std::string_view head) {
  std::size_t i = 0;
  while (i < head.size() && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r')) ++i;
  if (i >= head.size() || head[i] != '{') return false;
  ++i;
  while (i < head.size() && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r')) ++i;
  for (std::string_view key : {"\"version\"", "\"functions\"", "\"events\"", "\"costs\""})
    if (head.substr(i).starts_with(key)) return true;
  return false;
}

bool sniff_object(std::string_view head) {
  std::size_t i = 0;
  while (i < head.size() && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r')) ++i;
  if (i >= head.size() || head[i] != '{') return false;
  ++i;
  while (i < head.size() && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r')) ++i;
  return i < head.size() && (head[i] == '"' || head[i] == '}');
}

std::optional<Expected<Profile>> read_streaming(const InputFile& input, const formats::ReadOptions& options,
                                                Diagnostics& diag) {
  Reader streaming(input, options);
  if (!streaming.stream()) return std::nullopt;
  return streaming.build(diag);
}

Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  if (auto streamed = read_streaming(input, options, diag)) return std::move(*streamed);
  return read_general(input, options, diag);
}

Expected<Profile> read_general(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  Reader reader(input, options);
  return reader.read_general(diag);
}

}  // namespace graphgen::json
