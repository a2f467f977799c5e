#include "reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <thread>

#include "graphgen/analysis/merge.h"
#include "graphgen/text.h"
#include "stacks.h"

namespace graphgen::perf {

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// secs.usecs: digits '.' digits ':'
bool is_time(std::string_view t) {
  if (t.size() < 4 || t.back() != ':') return false;
  t.remove_suffix(1);
  std::size_t dot = t.find('.');
  return dot != std::string_view::npos && all_digits(t.substr(0, dot)) && all_digits(t.substr(dot + 1));
}

bool is_pid(std::string_view t) {
  std::size_t slash = t.find('/');
  if (slash == std::string_view::npos) return all_digits(t);
  return all_digits(t.substr(0, slash)) && all_digits(t.substr(slash + 1));
}

bool is_cpu(std::string_view t) { return t.size() >= 3 && t.front() == '[' && t.back() == ']' && all_digits(t.substr(1, t.size() - 2)); }

struct Header {
  std::string_view event;
  bool has_period = false;
  std::uint64_t period = 0;
  std::string_view rest;  // a frame, when recorded without -g
};

// Parses a sample header from the timestamp outwards (docs/formats.md
// §5.2): comm may contain spaces, so it is whatever precedes pid/tid.
bool parse_header(std::string_view line, Header& h) {
  struct Tok {
    std::size_t begin, end;
  };
  Tok toks[70];
  std::size_t n = 0;
  std::size_t i = 0;
  std::size_t time_tok = SIZE_MAX;
  while (i < line.size() && n < 64) {
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i >= line.size()) break;
    std::size_t b = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    toks[n++] = {b, i};
    if (time_tok == SIZE_MAX && n >= 2) {
      std::string_view t = line.substr(b, i - b);
      std::string_view prev = line.substr(toks[n - 2].begin, toks[n - 2].end - toks[n - 2].begin);
      if (is_time(t) && (is_pid(prev) || is_cpu(prev))) {
        time_tok = n - 1;
        // Period and event follow; stop tokenising after the event.
        for (int k = 0; k < 2 && i < line.size(); ++k) {
          while (i < line.size() && is_blank(line[i])) ++i;
          if (i >= line.size()) break;
          std::size_t b2 = i;
          while (i < line.size() && !is_blank(line[i])) ++i;
          toks[n++] = {b2, i};
          if (line[i - 1] == ':') break;
        }
        break;
      }
    }
  }
  if (time_tok == SIZE_MAX || time_tok + 1 >= n) return false;
  std::size_t k = time_tok + 1;
  std::string_view tok = line.substr(toks[k].begin, toks[k].end - toks[k].begin);
  if (all_digits(tok)) {
    h.has_period = parse_u64(tok, h.period);
    if (++k >= n) return false;
    tok = line.substr(toks[k].begin, toks[k].end - toks[k].begin);
  }
  if (tok.empty() || tok.back() != ':') return false;
  h.event = tok.substr(0, tok.size() - 1);
  h.rest = trim(line.substr(toks[k].end));
  return true;
}

struct Frame {
  std::string_view address, symbol, dso;
  bool has_dso = false;  // "(...)" present, possibly empty
};

// `addr symbol[+0xoff] (dso)`, leading whitespace already removed. The dso is
// the last balanced (...) group at the end of the line.
bool parse_frame(std::string_view s, Frame& f) {
  std::size_t i = 0;
  while (i < s.size() && is_hex(s[i])) ++i;
  if (i == 0 || i >= s.size() || !is_blank(s[i])) return false;
  f.address = s.substr(0, i);
  std::string_view rest = trim(s.substr(i));
  f.dso = {};
  f.has_dso = false;
  if (!rest.empty() && rest.back() == ')') {
    f.has_dso = true;
    int depth = 0;
    std::size_t j = rest.size();
    while (j-- > 0) {
      if (rest[j] == ')') ++depth;
      if (rest[j] == '(' && --depth == 0) break;
    }
    if (j == SIZE_MAX || depth != 0) return false;
    f.dso = rest.substr(j + 1, rest.size() - j - 2);
    rest = trim(rest.substr(0, j));
  }
  // Strip a trailing +0x<hex> offset.
  std::size_t plus = rest.rfind("+0x");
  if (plus != std::string_view::npos && plus + 3 < rest.size() &&
      std::all_of(rest.begin() + static_cast<std::ptrdiff_t>(plus + 3), rest.end(), is_hex))
    rest = rest.substr(0, plus);
  f.symbol = rest.empty() || rest == "[unknown]" ? f.address : rest;
  return true;
}

// A part of one input: a whole file, or a run of whole samples of it.
struct Part {
  const InputFile* input;
  std::size_t begin, end;
};

// Parses parts into its own profile; parts of one file read on both cores
// are merged afterwards in order (StackBuilder::absorb).
class Reader {
 public:
  explicit Reader(const Options& o) : builder_(profile, o.weight_by_period ? "period" : "samples", ""), options_(o) {}

  Profile profile;

  Expected<bool> read_part(const Part& part) {
    const InputFile& input = *part.input;
    path_ = input.path();
    part_ = part;
    LineScanner scanner(input.bytes().substr(part.begin, part.end - part.begin), &input, part.begin);
    std::string_view line;
    in_sample_ = false;
    while (scanner.next(line)) {
      if (line.empty()) {
        flush();
        continue;
      }
      char c = line[0];
      if (c == '#' && !in_sample_) continue;
      // Frames are tab-indented. A line indented with spaces is a padded
      // header (perf without -g pads comm), else a space-indented frame, else
      // the source line perf -F +srcline prints after a frame.
      Header h;
      bool header = c != '\t' && parse_header(line, h);
      if (!header && in_sample_ && (c == '\t' || c == ' ')) {
        Frame f;
        std::size_t lead = 0;
        while (lead < line.size() && is_blank(line[lead])) ++lead;
        if (parse_frame(line.substr(lead), f)) {
          add_frame(f);
          continue;
        }
        if (c == ' ' && line.size() > 1 && line[1] == ' ' && !frames_.empty()) continue;  // -F +srcline
        if (c == '\t')
          return fail(scanner.line_number(), lead + 1,
                      fmt::format("expected a frame 'address symbol (dso)', found {}", quote_input(trim(line))));
      }
      if (c == '\t')
        return fail(scanner.line_number(), 1,
                    fmt::format("expected a sample header before this frame, found {}", quote_input(trim(line))));
      flush();
      if (!header)
        return fail(scanner.line_number(), 1,
                    fmt::format("expected a sample header 'comm pid time: [period] event:', found {}",
                                quote_input(trim(line))));
      start_sample(h);
      if (!h.rest.empty()) {  // recorded without -g: the one frame is on the header
        Frame f;
        if (parse_frame(h.rest, f)) add_frame(f);
      }
    }
    flush();
    return true;
  }

  // Folds a later part's reader into this one: what is new is appended in
  // the other's order, so parts folded in order equal one pass.
  Expected<bool> absorb(const Reader& other) {
    if (auto ok = add_profile(profile, other.profile, other.path_); !ok) return ok;
    for (const std::string& e : other.events_)
      if (std::find(events_.begin(), events_.end(), e) == events_.end()) events_.push_back(e);
    kept_ += other.kept_;
    missing_period_ += other.missing_period_;
    return true;
  }

  Expected<bool> finish(const std::string& first_path, Diagnostics& diag_) {
    std::sort(events_.begin(), events_.end());
    if (!options_.event.empty() && kept_ == 0) {
      std::string seen;
      for (const std::string& e : events_) seen += (seen.empty() ? "" : ", ") + e;
      return bad_input(fmt::format("{}: no samples of event '{}'; the file has {}", first_path, options_.event,
                                   seen.empty() ? "no samples" : seen));
    }
    if (options_.event.empty() && events_.size() > 1) {
      std::string seen;
      for (const std::string& e : events_) seen += (seen.empty() ? "" : ", ") + e;
      diag_.warn(fmt::format("samples of {} events are counted together ({}); pick one with --event", events_.size(),
                             seen));
    }
    if (missing_period_ > 0)
      diag_.warn(fmt::format("{} sample(s) have no period in their header and count 1 each", missing_period_));
    return true;
  }

 private:
  Error fail(std::size_t line, std::size_t col, std::string message) const {
    // A part that starts inside the file counts the lines before it (only
    // on this error path).
    std::string_view before = part_.input->bytes().substr(0, part_.begin);
    line += static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    return bad_input(at_line(path_, line, col, message));
  }

  void start_sample(const Header& h) {
    in_sample_ = true;
    frames_.clear();
    if (std::find(events_.begin(), events_.end(), h.event) == events_.end()) events_.emplace_back(h.event);
    keep_ = options_.event.empty() || h.event == options_.event;
    weight_ = 1;
    if (options_.weight_by_period) {
      if (h.has_period)
        weight_ = static_cast<Cost>(std::min<std::uint64_t>(h.period, INT64_MAX));
      else
        ++missing_period_;
    }
  }

  void add_frame(const Frame& f) {
    if (!keep_) return;
    frames_.push_back(builder_.function(f.symbol, f.dso, basename_of(f.dso), f.has_dso));
  }

  void flush() {
    if (in_sample_ && keep_ && !frames_.empty()) {
      builder_.add_sample(frames_, weight_);
      ++kept_;
    }
    in_sample_ = false;
    frames_.clear();
  }

  detail::StackBuilder builder_;
  const Options& options_;
  Part part_{};
  std::string path_;
  bool in_sample_ = false;
  bool keep_ = true;
  Cost weight_ = 1;
  std::vector<FuncId> frames_;
  std::vector<std::string> events_;
  std::size_t kept_ = 0;
  std::size_t missing_period_ = 0;
};

}  // namespace

bool sniff(std::string_view head) {
  LineScanner scanner(head);
  std::string_view line;
  while (scanner.next(line)) {
    if (line.starts_with("# ========")) return true;
    if (line.empty() || line[0] == '#') continue;
    Header h;
    if (!parse_header(line, h)) return false;
    if (!h.rest.empty()) {
      Frame f;
      return parse_frame(h.rest, f);
    }
    std::string_view next;
    if (!scanner.next(next)) return true;
    Frame f;
    std::size_t lead = 0;
    while (lead < next.size() && is_blank(next[lead])) ++lead;
    return !next.empty() && next[0] == '\t' && parse_frame(next.substr(lead), f);
  }
  return false;
}

namespace {

// Splits large files in two at a sample boundary (an empty line) so both
// cores can parse them; small files stay whole.
std::vector<Part> plan_parts(const std::vector<InputFile>& inputs, std::size_t split_above) {
  std::vector<Part> parts;
  for (const InputFile& in : inputs) {
    std::string_view b = in.bytes();
    std::size_t cut = b.size() > split_above ? b.find("\n\n", b.size() / 2) : std::string_view::npos;
    if (cut == std::string_view::npos) {
      parts.push_back({&in, 0, b.size()});
    } else {
      parts.push_back({&in, 0, cut + 2});
      parts.push_back({&in, cut + 2, b.size()});
    }
  }
  return parts;
}

}  // namespace

Expected<Profile> read(const std::vector<InputFile>& inputs, const Options& options, Diagnostics& diag) {
  std::vector<Part> parts = plan_parts(inputs, options.split_above);
  std::vector<std::unique_ptr<Reader>> readers;
  std::vector<std::optional<Error>> errors(parts.size());
  for (std::size_t i = 0; i < parts.size(); ++i) readers.push_back(std::make_unique<Reader>(options));
  // Two workers take parts in turn; the merge below is in part order, so
  // the result does not depend on which worker read what.
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < parts.size();)
      if (auto ok = readers[i]->read_part(parts[i]); !ok) errors[i] = ok.error();
  };
  std::thread helper;
  if (parts.size() > 1) helper = std::thread(work);
  work();
  if (helper.joinable()) helper.join();
  for (const auto& e : errors)
    if (e) return *e;
  for (std::size_t i = 1; i < readers.size(); ++i) {
    if (auto ok = readers[0]->absorb(*readers[i]); !ok) return ok.error();
    readers[i].reset();
  }
  if (auto ok = readers[0]->finish(inputs.front().path(), diag); !ok) return ok.error();
  return std::move(readers[0]->profile);
}

}  // namespace graphgen::perf
