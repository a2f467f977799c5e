#include "austin/reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <unordered_map>

#include "common/python_text.h"
#include "graphgen/analysis/stacks.h"
#include "graphgen/io.h"
#include "graphgen/text.h"
#include "graphgen/utf8.h"

namespace graphgen::austin {

namespace {

bool digits(std::string_view s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos; }

bool integer(std::string_view s, std::int64_t& v) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size();
}

// One thread's own costs, for the per-rank statistics.
struct Thread {
  std::string name;
  std::unordered_map<FuncId, std::size_t> row;
  std::vector<FuncId> functions;
  std::vector<Cost> self, total;  // functions.size() x events
};

class Reader {
 public:
  Reader(const InputFile& in, const formats::ReadOptions& options, Diagnostics& diag)
      : in_(in), options_(options), diag_(diag) {}

  Expected<Profile> read() {
    std::string_view text = in_.bytes();
    if (auto ok = columns(text); !ok) return ok.error();
    builder_.emplace(p_, events_, options_.keep_stacks);
    std::size_t number = 0;
    PassedPages passed(&in_);  // (given back, and counted for the read's progress)
    for (std::size_t pos = 0; pos < text.size();) {
      std::size_t nl = text.find('\n', pos);
      std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
      passed.at(pos);
      pos = nl == std::string_view::npos ? text.size() : nl + 1;
      ++number;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.empty() || line.starts_with('#')) continue;
      if (auto ok = sample(line, number); !ok) return ok.error();
      if (options_.memory_budget && number % 4096 == 0 && p_.approximate_bytes() > options_.memory_budget)
        return bad_input(
            formats::over_budget_message(in_.path(), options_.memory_budget, p_.functions.size(), p_.events.size()));
    }
    def_lines();
    locations();
    if (frameless_value_)
      diag_.warn(fmt::format("{}: {} lines without frames are left out ({} {} of {})", in_.path(), frameless_,
                             frameless_value_, p_.str(events_[0].unit), p_.str(events_[0].name)));
    if (bad_samples_)
      diag_.warn(fmt::format("{}: {} of Austin's 'Bad sample' lines are left out", in_.path(), bad_samples_));
    return std::move(p_);
  }

 private:
  // How many metrics end each line, and which events they are: from the
  // metadata (Austin 2 and 3) and the first line with frames.
  Expected<bool> columns(std::string_view text) {
    std::string_view mode;
    for (std::size_t pos = 0; pos < text.size();) {
      std::size_t nl = text.find('\n', pos);
      std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
      pos = nl == std::string_view::npos ? text.size() : nl + 1;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.starts_with("# mode: ")) mode = line.substr(8);
      if (line.starts_with('#') || line.find(';') == std::string_view::npos) continue;
      std::string_view last = line.substr(line.rfind(';') + 1);
      std::size_t space = last.rfind(' ');
      std::string_view token = space == std::string_view::npos ? last : last.substr(space + 1);
      if (token.find(',') != std::string_view::npos) {
        commas_ = true;
        count_ = static_cast<std::size_t>(std::count(token.begin(), token.end(), ',')) + 1;
      } else {
        // Trailing integers of the last frame's segment (its L line is not one).
        count_ = 0;
        std::string_view rest = last;
        std::int64_t v = 0;
        while (count_ < 3 && !rest.empty()) {
          std::size_t sp = rest.rfind(' ');
          if (sp == std::string_view::npos || !integer(rest.substr(sp + 1), v)) break;
          ++count_;
          rest = rest.substr(0, sp);
        }
        if (count_ == 0) count_ = 1;
      }
      break;
    }
    auto event = [&](std::string_view name, std::string_view unit, double spu) {
      Event e;
      e.name = p_.strings.intern(name);
      e.unit = p_.strings.intern(unit);
      e.seconds_per_unit = spu;
      events_.push_back(e);
    };
    // Austin 1 writes no mode: memory samples (-m) are said with --event memory.
    if (count_ == 1 && (mode == "memory" || options_.event == "memory")) {
      event("memory", "KiB", 0);
    } else {
      event("time", "microseconds", 1e-6);
      if (count_ == 2) event("memory", "KiB", 0);
      if (count_ >= 3) {
        event("memory_grown", "KiB", 0);
        event("memory_freed", "KiB", 0);
      }
    }
    count_ = std::min(count_, events_.size());
    return true;
  }

  Error expected(std::size_t line, std::size_t col, std::string_view what, std::string_view found) const {
    return bad_input(fmt::format("{}:{}:{}: expected {}, found {}", in_.path(), line, col, what, quote_input(found)));
  }

  FuncId function(std::string_view name, std::string_view file) {
    key_.assign(name).append(1, '\0').append(file);
    auto [it, fresh] = functions_.try_emplace(key_, 0);
    if (fresh) {
      Function f;
      f.name = p_.strings.intern(name);
      if (!file.empty()) f.file = p_.strings.intern(file);
      it->second = p_.add_function(f);
      first_line_.push_back(0);
    }
    return it->second;
  }
  void sampled_line(FuncId f, std::int64_t line) {
    if (line > 0 && (first_line_[f] == 0 || line < first_line_[f])) first_line_[f] = line;
  }

  Expected<bool> sample(std::string_view line, std::size_t number) {
    // The metrics: the last `count_` tokens (or one token of commas).
    std::string_view body = line;
    std::int64_t values[3] = {0, 0, 0};
    const std::size_t n = commas_ ? 1 : count_;
    std::vector<std::string_view> tokens;
    for (std::size_t k = 0; k < n; ++k) {
      std::size_t sp = body.rfind(' ');
      if (sp == std::string_view::npos)
        return expected(number, 1, fmt::format("{} metrics at the end of the line", count_), line);
      tokens.push_back(body.substr(sp + 1));
      body = body.substr(0, sp);
    }
    if (commas_) {
      std::string_view t = tokens[0];
      tokens.clear();
      for (std::size_t c; (c = t.find(',')) != std::string_view::npos; t.remove_prefix(c + 1))
        tokens.push_back(t.substr(0, c));
      tokens.push_back(t);
      if (tokens.size() != count_)
        return expected(number, body.size() + 2, fmt::format("{} metrics separated by commas", count_), t);
    } else {
      std::reverse(tokens.begin(), tokens.end());
    }
    for (std::size_t k = 0; k < count_; ++k)
      if (!integer(tokens[k], values[k]))
        return expected(number, static_cast<std::size_t>(tokens[k].data() - line.data()) + 1, "a metric (an integer)",
                        tokens[k]);
    if (count_ >= 3) values[2] = values[2] < 0 ? -values[2] : values[2];
    // The thread, then the frames.
    std::vector<std::string_view> segments;
    for (std::size_t s; (s = body.find(';')) != std::string_view::npos; body.remove_prefix(s + 1))
      segments.push_back(body.substr(0, s));
    segments.push_back(body);
    std::size_t k = 0;
    thread_.clear();
    while (k < segments.size() && (segments[k].starts_with("Process ") || segments[k].starts_with("Thread ") ||
                                   (segments[k].size() > 1 && (segments[k][0] == 'P' || segments[k][0] == 'T') &&
                                    k < 2 && segments[k].find_first_of(" ()") == std::string_view::npos &&
                                    segments[k].find(':') == segments[k].rfind(':') &&
                                    std::isxdigit(static_cast<unsigned char>(segments[k][1]))))) {
      thread_ += (thread_.empty() ? "" : " ") + std::string(segments[k]);
      ++k;
    }
    if (thread_.empty()) return expected(number, 1, "'Thread ID' (or 'P<pid>;T<tid>') first", segments[0]);
    stack_.clear();
    for (; k < segments.size(); ++k) {
      std::string_view s = segments[k];
      const std::size_t col = static_cast<std::size_t>(s.data() - line.data()) + 1;
      if (s.starts_with("Bad sample")) {
        ++bad_samples_;
        return true;
      }
      if (s.size() > 1 && s[0] == 'L' && digits(s.substr(1)) && !stack_.empty()) {
        std::int64_t l = 0;
        integer(s.substr(1), l);
        sampled_line(stack_.back(), l);
        continue;
      }
      if (s == "<idle>") {
        stack_.push_back(function(s, {}));
        continue;
      }
      const std::size_t open = s.find(" (");
      if (open != std::string_view::npos && s.back() == ')') {
        std::string_view name = s.substr(0, open), file = s.substr(open + 2, s.size() - open - 3);
        std::int64_t l = 0;
        const std::size_t colon = file.rfind(':');
        if (colon != std::string_view::npos && integer(file.substr(colon + 1), l)) file = file.substr(0, colon);
        stack_.push_back(function(name, file));
        sampled_line(stack_.back(), l);
        continue;
      }
      // Austin 2 and 3: FILE:FUNCTION:LINE.
      const std::size_t last = s.rfind(':');
      const std::size_t mid =
          last == std::string_view::npos || last == 0 ? std::string_view::npos : s.rfind(':', last - 1);
      std::int64_t l = 0;
      if (mid == std::string_view::npos || !integer(s.substr(last + 1), l))
        return expected(number, col, "a frame 'FUNCTION (FILE)' or 'FILE:FUNCTION:LINE'", s);
      stack_.push_back(function(s.substr(mid + 1, last - mid - 1), s.substr(0, mid)));
      sampled_line(stack_.back(), l);
    }
    if (stack_.empty()) {
      ++frameless_;
      frameless_value_ += values[0];
      return true;
    }
    bool any = false;
    for (std::size_t e = 0; e < count_; ++e) any |= values[e] != 0;
    if (!any) return true;
    std::reverse(stack_.begin(), stack_.end());
    builder_->add_sample(stack_, values, thread_);
    per_thread(values);
    return true;
  }

  // The thread's own self and total costs.
  void per_thread(const std::int64_t* values) {
    auto [it, fresh] = thread_index_.try_emplace(thread_, threads_.size());
    if (fresh) threads_.push_back({thread_, {}, {}, {}, {}});
    Thread& t = threads_[it->second];
    const std::size_t ne = events_.size();
    ++generation_;
    if (seen_.size() < p_.functions.size()) seen_.resize(p_.functions.size(), 0);
    for (std::size_t i = 0; i < stack_.size(); ++i) {
      const FuncId f = stack_[i];
      auto [r, added] = t.row.try_emplace(f, t.functions.size());
      if (added) {
        t.functions.push_back(f);
        t.self.resize(t.self.size() + ne, 0);
        t.total.resize(t.total.size() + ne, 0);
      }
      for (std::size_t e = 0; e < ne; ++e) {
        if (i == 0) t.self[r->second * ne + e] = saturating_add(t.self[r->second * ne + e], values[e]);
        if (seen_[f] != generation_)
          t.total[r->second * ne + e] = saturating_add(t.total[r->second * ne + e], values[e]);
      }
      seen_[f] = generation_;
    }
  }

  void locations() {
    if (threads_.size() < 2) return;
    std::vector<std::uint32_t> rows;
    const std::size_t ne = events_.size();
    for (std::size_t k = 0; k < threads_.size(); ++k) {
      const Thread& t = threads_[k];
      Location loc;
      loc.thread = static_cast<std::int64_t>(k);
      loc.label = p_.strings.intern(t.name);
      loc.begin = loc.end = static_cast<std::uint32_t>(p_.location_functions.size());
      p_.locations.push_back(loc);
      for (std::size_t i = 0; i < t.functions.size(); ++i) {
        const std::uint32_t row = p_.location_row(t.functions[i], rows);
        for (std::size_t e = 0; e < ne; ++e) {
          p_.location_self[row * ne + e] = t.self[i * ne + e];
          p_.location_total[row * ne + e] = t.total[i * ne + e];
        }
      }
    }
  }

  // The first line (0-based) of the statement each line of `lines` is in.
  static std::vector<std::uint32_t> statement_starts(const std::vector<std::string>& lines) {
    std::vector<std::uint32_t> out(lines.size());
    formats::LogicalLines logical;
    std::uint32_t start = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (!logical.inside()) start = static_cast<std::uint32_t>(i);
      out[i] = start;
      logical.next(lines[i]);
    }
    return out;
  }

  // Each function's def line, from its source where it can be read.
  void def_lines() {
    p_.label_style = LabelStyle::kPython;
    std::unordered_map<std::string, std::vector<std::string>> sources;
    // Per file, the first line of the statement each line is in (a
    // decorator's arguments may run over several lines).
    std::unordered_map<std::string, std::vector<std::uint32_t>> statements;
    std::unordered_map<std::string, bool> readable;
    std::size_t guessed = 0;
    std::vector<std::string_view> missing;
    for (FuncId f = 0; f < p_.functions.size(); ++f) {
      Function& fn = p_.functions[f];
      const std::string_view name = p_.str(fn.name);
      fn.line = first_line_[f];
      if (fn.file == kNoString) continue;
      if (name == "<module>") {
        fn.line = 1;
        continue;
      }
      const std::string file(p_.str(fn.file));
      auto [it, fresh] = readable.try_emplace(file, false);
      if (fresh) {
        it->second = formats::read_source(file, {}, sources[file]);
        if (it->second) statements[file] = statement_starts(sources[file]);
        if (!it->second && !file.starts_with('<')) missing.push_back(p_.str(fn.file));
      }
      if (!it->second) {
        guessed += !file.starts_with('<');  // frozen modules have no file to read
        continue;
      }
      const std::vector<std::string>& lines = sources[file];
      const std::vector<std::uint32_t>& starts = statements[file];
      const auto size = static_cast<std::int64_t>(lines.size());
      // Austin 1.0.1 reads CPython 3.6-3.9's line table as unsigned: a
      // step back adds 256, and lines run past the end of the file.
      while (fn.line > size && fn.line > 256) fn.line -= 256;
      if (name.starts_with('<')) continue;  // comprehensions, lambdas: where they start
      std::int64_t start = std::min<std::int64_t>(fn.line > 0 ? fn.line : 1, size);
      for (std::int64_t l = start; l >= 1; --l) {
        std::string_view text = lines[static_cast<std::size_t>(l - 1)];
        text.remove_prefix(std::min(text.find_first_not_of(" \t"), text.size()));
        if (text.starts_with("async "))
          text.remove_prefix(text.find_first_not_of(' ', 6) == std::string_view::npos ? text.size()
                                                                                      : text.find_first_not_of(' ', 6));
        for (std::string_view kw : {"def ", "class "})
          if (text.starts_with(kw)) {
            std::string_view rest = text.substr(kw.size());
            rest.remove_prefix(std::min(rest.find_first_not_of(' '), rest.size()));
            if (rest.starts_with(name) && rest.size() > name.size() &&
                std::string_view("([: \t").find(rest[name.size()]) != std::string_view::npos) {  // ([: PEP 695)
              // cProfile's line is the first decorator's (the first line
              // of its statement: `@route(\n    "/a")`), over blank and
              // comment lines between.
              fn.line = l;
              for (std::int64_t at = l; at > 1;) {
                const std::uint32_t first = starts[static_cast<std::size_t>(at - 2)];
                std::string_view above = lines[first];
                above.remove_prefix(std::min(above.find_first_not_of(" \t\f"), above.size()));
                if (above.starts_with('@'))
                  fn.line = static_cast<std::int64_t>(first) + 1;
                else if (!above.empty() && !above.starts_with('#') && !above.starts_with('\n') &&
                         !above.starts_with('\r'))
                  break;
                at = static_cast<std::int64_t>(first) + 1;
              }
              l = 0;
              break;
            }
          }
      }
    }
    if (guessed)
      diag_.warn(fmt::format(
          "{}: {} functions of {} source files graphgen cannot read (e.g. {}) are labelled by the first line "
          "sampled in them, not their def line as cProfile labels them",
          in_.path(), guessed, missing.size(), printable_utf8(missing.front())));
  }

  const InputFile& in_;
  const formats::ReadOptions& options_;
  Diagnostics& diag_;
  Profile p_;
  std::vector<Event> events_;
  std::optional<detail::StackBuilder> builder_;
  std::size_t count_ = 1;
  bool commas_ = false;
  std::unordered_map<std::string, FuncId> functions_;
  std::vector<std::int64_t> first_line_;
  std::string key_, thread_;
  std::vector<FuncId> stack_;
  std::unordered_map<std::string, std::size_t> thread_index_;
  std::vector<Thread> threads_;
  std::vector<std::size_t> seen_;
  std::size_t generation_ = 0;
  std::size_t bad_samples_ = 0;
  std::size_t frameless_ = 0;
  std::int64_t frameless_value_ = 0;
};

}  // namespace

bool sniff(std::string_view head) {
  std::size_t i = 0;
  while (i < head.size() && (head[i] == '\n' || head[i] == '\r')) ++i;
  std::string_view s = head.substr(i);
  if (s.starts_with("# austin: ")) return true;
  if (s.starts_with("Thread ") || s.starts_with("Process ")) {
    std::string_view line = s.substr(0, s.find('\n'));
    if (line.ends_with('\r')) line.remove_suffix(1);  // (a file of Windows line ends, as the reader takes it)
    std::size_t sp = line.rfind(' ');
    std::int64_t v = 0;
    return sp != std::string_view::npos && sp > 7 && integer(line.substr(sp + 1), v);
  }
  if (s.size() > 3 && s[0] == 'P' && std::isdigit(static_cast<unsigned char>(s[1]))) {
    std::size_t semi = s.find(';');
    return semi != std::string_view::npos && digits(s.substr(1, semi - 1)) && s.substr(semi + 1).starts_with("T");
  }
  return false;
}

Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  return Reader(input, options, diag).read();
}

}  // namespace graphgen::austin
