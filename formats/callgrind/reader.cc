#include "reader.h"

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <memory>
#include <optional>

#include "graphgen/flat_index.h"
#include "graphgen/text.h"
#include "graphgen/thread.h"

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
constexpr int kMaxPositions = 4;

class Reader {
 public:
  Reader(Profile& p, const formats::ReadOptions& options, Diagnostics& diag)
      : p_(p),
        diag_(diag),
        merge_by_name_(options.merge_by_name),
        keep_positions_(options.keep_positions),
        budget_(options.memory_budget) {}

  /// The reader of a file's second half: the header's events and positions
  /// of `head`, and the state at the cut unknown (see Speculation).
  Reader(Profile& p, const Reader& head, Diagnostics& diag)
      : p_(p),
        diag_(diag),
        merge_by_name_(head.merge_by_name_),
        keep_positions_(false),
        budget_(head.budget_ ? head.budget_ / 2 + 1 : 0) {  // (half: the two halves are held at once)
    path_ = head.path_;
    ends_with_newline_ = head.ends_with_newline_;
    p_.events = head.p_.events;
    columns_ = head.columns_;
    columns_distinct_ = head.columns_distinct_;
    costs_.assign(p_.events.size(), 0);
    saw_events_ = head.saw_events_;
    positions_ = head.positions_;
    line_position_ = head.line_position_;
    address_position_ = head.address_position_;
    saw_body_ = true;
    spec_.on = true;
    spec_.line_known = line_position_ < 0;
    ob_ = state(kOb);
    fl_ = state(kFl);
    fi_ = state(kFi);
    fn_ = state(kFn);
    cfn_ = state(kCfn);
    cob_ = state(kCob);
    cfi_ = state(kCfi);
    jfi_ = state(kJfi);
    jfn_ = state(kJfn);
    fn_set_ = cfn_set_ = true;  // (checked when the names resolve)
  }

  /// Reads the whole file. From `cut` on (the start of a `fn=` line, or
  /// npos), a second reader takes the rest on the other core, with the
  /// state at the cut unknown (speculation); its result is folded in when
  /// the state it assumed is the one the first half ends in, and otherwise
  /// the rest is read again here: either way the same profile.
  Expected<bool> read_file(const InputFile& input, std::size_t cut = std::string_view::npos,
                           bool* split_used = nullptr) {
    path_ = input.path();
    const std::string_view bytes = input.bytes();
    ends_with_newline_ = !bytes.empty() && bytes.back() == '\n';
    if (split_used) *split_used = false;
    if (cut >= bytes.size() || keep_positions_) {
      LineScanner scanner(bytes, &input);
      if (auto ok = read_lines(scanner, 0, true, true); !ok) return ok;
      reserve_tables(bytes.size());
      if (auto ok = read_lines(scanner, 0, true, false); !ok) return ok;
      return end_of_file();
    }
    LineScanner first(bytes.substr(0, cut), &input);
    // The header first: the other half needs its events and positions.
    if (auto ok = read_lines(first, 0, false, true); !ok) return ok;
    reserve_tables(cut);
    auto rest_profile = std::make_unique<Profile>();
    Diagnostics rest_diag;  // (the speculative reader stops before any warning)
    auto rest = std::make_unique<Reader>(*rest_profile, *this, rest_diag);
    // Each half within half the budget while both are held: past it, the
    // first stops the second, which frees its tables.
    std::atomic<bool> stop{false};
    half_budget_stop_ = &stop;
    bool rest_ok = false;
    std::atomic<bool> rest_done{false};
    // (No thread: one half after the other.)
    BesideThread helper = BesideThread::start_or_run([&] {
      try {
        LineScanner scanner(bytes.substr(cut), &input, cut);
        rest->stop_ = &stop;
        rest->reserve_tables(bytes.size() - cut);
        rest_ok = rest->read_lines(scanner, 0, true, false).has_value() && !rest->in_call_ && !rest->stop_relative_;
      } catch (const std::bad_alloc&) {
        rest_ok = false;
      }
      if (!rest_ok) {
        rest.reset();
        rest_profile.reset();
      }
      rest_done.store(true, std::memory_order_release);
    });
    Expected<bool> head = true;
    try {
      head = read_lines(first, 0, false, false);
    } catch (...) {  // (out of memory: the helper is joined before it goes on)
      stop = true;
      helper.join();
      throw;
    }
    if (!head) stop = true;
    // Done first, this half's tables grow toward their folded sizes (the
    // other half's guessed from the bytes) while it finishes: the rehash
    // and copying absorb() would do on the way, 1.5 ms on pydoc-sep3, off
    // the critical path.
    if (head && !rest_done.load(std::memory_order_acquire))
      grow_for_fold(static_cast<double>(bytes.size() - cut) / static_cast<double>(cut));
    helper.join();
    half_budget_stop_ = nullptr;
    if (!head) return head;
    if (rest_ok && absorb(*rest, *rest_profile)) {
      if (split_used) *split_used = true;
      return end_of_file();
    }
    // The guess was wrong (or the rest is malformed): read it here.
    rest.reset();
    rest_profile.reset();
    LineScanner scanner(bytes.substr(cut), &input, cut);
    if (auto ok = read_lines(scanner, first.line_number(), true, false); !ok) return ok;
    return end_of_file();
  }

  // Reads the lines of `scanner`, numbered after `line_base`; `file_end`:
  // the scanner ends where the file does. `header_only`: stops before the
  // first line of the body (a name spec or a cost line).
  Expected<bool> read_lines(LineScanner& scanner, std::size_t line_base, bool file_end, bool header_only) {
    std::string_view line;
    // Every 4096 lines: the second half asked to stop (or holding too many
    // relative lines) gives up there; and the budget, since a hostile file
    // can make a small input ask for a huge table (a thousand events for
    // each of a hundred thousand functions).
    auto checkpoint = [&]() -> std::optional<Error> {
      if ((line_no_ & 4095) != 0) return std::nullopt;
      if (stop_ && (stop_relative_ || stop_->load(std::memory_order_relaxed))) return abandon();
      if (!budget_) return std::nullopt;
      const std::size_t held = p_.approximate_bytes() + lines_.bytes() + jumps_.bytes();
      if (half_budget_stop_ && held > budget_ / 2) half_budget_stop_->store(true, std::memory_order_relaxed);
      if (held <= budget_) return std::nullopt;
      return bad_input(formats::over_budget_message(fmt::format("{}:{}", path_, line_no_), budget_, p_.functions.size(),
                                                    p_.events.size()));
    };
    for (;;) {
      if (header_only && (!scanner.peek(line) || body_line(line))) return true;
      if (!scanner.next(line)) break;
      line_no_ = line_base + scanner.line_number();
      if (quick_self_line(line)) {
        if (auto stop = checkpoint()) return *stop;
        self_line_run(scanner, line_base);
        continue;
      }
      auto ok = dispatch(line);
      if (ok) {
        if (auto stop = checkpoint()) return *stop;
        continue;
      }
      if (file_end && scanner.at_end() && !ends_with_newline_ && !spec_.on) {
        // Valgrind killed while writing: the last line is cut short.
        diag_.warn(cut_last_line(path_, line_no_, line));
        in_call_ = in_jump_ = false;
        break;
      }
      return ok;
    }
    return true;
  }

  Expected<bool> end_of_file() {
    if (in_call_) {
      if (!ends_with_newline_) {
        diag_.warn(
            fmt::format("{}:{}: the file ends inside a call (no cost line after 'calls='); that call was "
                        "ignored",
                        path_, line_no_));
      } else {
        return fail(line_no_ + 1, 1, "expected the cost line of the call after 'calls=', found the end of the file");
      }
    }
    return true;
  }

  void finish() {
    // The self costs the summary and totals lines go with (callgrind's
    // writer keeps them while these still add up the same).
    if (!p_.reported.summary.empty() || !p_.reported.totals.empty()) {
      p_.reported.self_sums.assign(p_.events.size(), 0);
      for (FuncId f = 0; f < p_.functions.size(); ++f)
        for (std::size_t e = 0; e < p_.events.size(); ++e)
          p_.reported.self_sums[e] = saturating_add(p_.reported.self_sums[e], p_.self(f, e));
    }
    // valgrind writes totals: after the last cost line of each dump: a file
    // of its without one was cut at a line's end (head -n, a full disk),
    // which reads as a smaller, well-formed profile.
    if (by_valgrind_ && !p_.reported.summary.empty() && p_.reported.totals.empty() && !p_.events.empty())
      diag_.warn(
          fmt::format("{}: no 'totals:' line, which callgrind writes at the end: the file looks cut short; "
                      "what was read adds up to {} {} of the {} its summary gives",
                      path_, p_.reported.self_sums[0], p_.str(p_.events[0].name), p_.reported.summary[0]));
    if (ignored_headers_ > 0)
      diag_.warn(fmt::format("{}: ignored {} header line(s) of unknown keys, first {}", path_, ignored_headers_,
                             quote_input(first_ignored_)));
    if (undefined_ids_ > 0)
      diag_.warn(
          fmt::format("{}: {} name id(s) used without a definition, first {} at line {}; read as empty "
                      "names, as gprof2dot does",
                      path_, undefined_ids_, quote_input(first_undefined_), first_undefined_line_));
  }

 private:
  Error fail(std::size_t line, std::size_t col, std::string message) const {
    return bad_input(at_line(path_, line, col, message));
  }

  // --- the second half, read before the first (speculation) ---------------
  //
  // The reader of the second half starts at a `fn=` line without knowing
  // the state the first half leaves: the names ob=, fl=, fi=, fn= and cfn=
  // last set, the name ids defined, the last position. It reads on with
  // placeholders for them (ids with the top bit set, never the string
  // table's) and notes each flag it took as unset before the file set it.
  // absorb() then checks those guesses against the first half's end and
  // puts its names in. A line it cannot read that way (a new `events:`,
  // an error) abandons it: the first reader reads that half itself.
  enum Slot : std::uint32_t { kOb, kFl, kFi, kFn, kCfn, kCob, kCfi, kJfi, kJfn };
  static constexpr StringId kPlaceholder = 1u << 31;
  static StringId state(Slot s) { return kPlaceholder | 3u << 25 | s; }
  static StringId name_id(Kind kind, std::uint64_t id) {
    return kPlaceholder | static_cast<StringId>(kind) << 25 | static_cast<StringId>(id);
  }
  // A placeholder's kind (3 for a Slot) and its id or Slot.
  static std::uint32_t kind_of(StringId s) { return (s >> 25) & 3; }
  static std::uint32_t id_of(StringId s) { return s & ((1u << 25) - 1); }
  struct Speculation {
    bool on = false;
    bool line_known = true;                                        // the line position has been absolute since the cut
    bool fsp_known = false, cob_known = false, cfi_known = false;  // set or cleared since the cut
    bool fsp_used = false, cob_used = false, cfi_used = false;     // used before that, as unset
    bool saw_summary = false, saw_totals = false;                  // a readable one, which replaces the first half's
    // Self cost lines of functions without a first line, read while the
    // line was relative to the unknown one at the cut: (function, offset).
    std::vector<std::pair<FuncId, std::int64_t>> relative_lines;
    // Functions in the order they got their first line after those (a
    // name given by id and by text is two functions here, one when folded).
    std::vector<FuncId> first_lines;
    std::array<std::vector<bool>, 3> asked;  // name ids used before a definition after the cut
  };

  Error abandon() const { return bad_input("(the second half is read again)"); }

  static bool body_line(std::string_view line) {
    if (line.empty() || line[0] == '#') return false;
    const char c = line[0];
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*') return true;
    std::size_t eq = line.find('=');
    return eq != std::string_view::npos && eq < line.find(':');
  }

  // After a cost line's positions, while the line is relative to the cut:
  // an absolute line number makes it known.
  void note_positions(std::string_view line) {
    const char* p = line.data();
    const char* end = p + line.size();
    for (int k = 0; k < positions_ && p < end; ++k) {
      while (p < end && is_blank(*p)) ++p;
      if (p < end && k == line_position_ && *p >= '0' && *p <= '9') {
        spec_.line_known = true;
        return;
      }
      while (p < end && !is_blank(*p)) ++p;
    }
  }

  // The profile's tables reserved, once the events are known, at what
  // `bytes` of the file can add at most (Profile::reserve_bound()): a new
  // function needs a name line ("fn=x", 5 bytes with its newline), a new
  // call a calls= line and its cost line (12). Grown by doubling,
  // pydoc-sep3's tables were an eighth of its page faults.
  void reserve_tables(std::size_t bytes) {
    p_.reserve_bound(bytes / 5, bytes / 12);
    if (!keep_positions_) return;
    // And the rows of kept positions: a cost line ("0 1", 4 bytes) can
    // add a line's row; a call its site; a jump line ("jump=1 0", 9) a
    // jump.
    const std::size_t ne = std::max<std::size_t>(p_.events.size(), 1);
    const std::size_t lines = bounded_rows(bytes / 4, sizeof(LineCost) + ne * sizeof(Cost));
    const std::size_t sites = bounded_rows(bytes / 12, sizeof(CallSite) + ne * sizeof(Cost));
    p_.line_costs.reserve(lines);
    p_.line_cost_values.reserve(lines * ne);
    p_.call_sites.reserve(sites);
    p_.call_site_cost.reserve(sites * ne);
    p_.jumps.reserve(bounded_rows(bytes / 9, sizeof(Jump)));
  }

  // Room in the tables for the second half, guessed as `rest_share` times
  // the first (more than that is left to grow as ever).
  void grow_for_fold(double rest_share) {
    auto folded = [&](std::size_t n) {
      return n + static_cast<std::size_t>(static_cast<double>(n) * std::min(rest_share, 4.0));
    };
    const std::size_t ne = p_.events.size();
    const std::size_t functions = folded(p_.functions.size()), calls = folded(p_.calls.size());
    p_.strings.reserve(folded(p_.strings.size()));
    p_.functions.reserve(functions);
    p_.self_cost.reserve(functions * ne);
    functions_.reserve(functions);
    p_.calls.reserve(calls);
    p_.call_cost.reserve(calls * ne);
    calls_.reserve(calls);
  }

  // The second half's result put in, when what it guessed holds: the same
  // profile as reading on. False (nothing changed) when a guess is wrong.
  bool absorb(const Reader& r, const Profile& rp) {
    if (in_call_ || in_jump_ || (r.spec_.fsp_used && file_switch_pending_) || (r.spec_.cob_used && cob_set_) ||
        (r.spec_.cfi_used && cfi_set_))
      return false;
    // The header it took, still the first half's at the cut (an events:
    // line may come after the first name spec).
    if (columns_ != r.columns_ || p_.events.size() != rp.events.size() || saw_events_ != r.saw_events_ ||
        positions_ != r.positions_ || line_position_ != r.line_position_ || address_position_ != r.address_position_)
      return false;
    // Folded, the tables hold at most the two halves' bytes: within the
    // budget, reading on would not have stopped (it checks a size that only
    // grows); past it, reading on tells where it stops.
    if (budget_ && p_.approximate_bytes() + rp.approximate_bytes() > budget_) return false;
    auto resolvable = [&](StringId s) {
      if (!(s & kPlaceholder)) return true;
      const std::uint32_t kind = kind_of(s), id = id_of(s);
      if (kind == 3) return (id != kFn || fn_set_) && (id != kCfn || cfn_set_);
      return id < names_[kind].size() && names_[kind][id] != kUndefined;
    };
    for (const Function& f : rp.functions)
      if (!resolvable(f.name) || !resolvable(f.object) || !resolvable(f.file)) return false;
    // Every id used, even by a name no cost line followed: undefined before
    // the cut too, reading on counts it.
    for (std::uint32_t kind = 0; kind < 3; ++kind)
      for (std::uint32_t id = 0; id < r.spec_.asked[kind].size(); ++id)
        if (r.spec_.asked[kind][id] && !resolvable(name_id(static_cast<Kind>(kind), id))) return false;
    // Strings in the order the second half met them: the ids reading on gives.
    std::vector<StringId> ids(rp.strings.size());
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = p_.strings.intern(rp.strings.view(static_cast<StringId>(i)));
    const std::array<StringId, 9> at_cut = {ob_, fl_, fi_, fn_, cfn_, cob_, cfi_, jfi_, jfn_};
    auto resolve = [&](StringId s) {
      if (!(s & kPlaceholder)) return ids[s];
      const std::uint32_t kind = kind_of(s), id = id_of(s);
      return kind == 3 ? at_cut[id] : names_[kind][id];
    };
    const std::size_t ne = p_.events.size();
    // Looked up in a batch, each slot fetched a few lookups ahead.
    constexpr std::size_t kAhead = 8;
    struct Key {
      StringId name, object, file;
    };
    std::vector<Key> keys(rp.functions.size());
    for (FuncId f = 0; f < rp.functions.size(); ++f)
      keys[f] = {resolve(rp.functions[f].name), resolve(rp.functions[f].object), resolve(rp.functions[f].file)};
    std::vector<FuncId> to(rp.functions.size());
    for (FuncId f = 0; f < rp.functions.size(); ++f) {
      if (f + kAhead < keys.size()) {
        const Key& k = keys[f + kAhead];
        functions_.prefetch(FlatIndex::mix(k.name, k.object, k.file));
      }
      const Function& fn = rp.functions[f];
      const FuncId g = to[f] = function_for(keys[f].name, keys[f].object, keys[f].file);
      p_.functions[g].calls = saturating_add(p_.functions[g].calls, fn.calls);
      for (std::size_t e = 0; e < ne; ++e) p_.self(g, e) = saturating_add(p_.self(g, e), rp.self(f, e));
    }
    // First lines: the first half's, then those read relative to the cut,
    // then those read after an absolute one, as reading on sets them.
    for (const auto& [f, offset] : r.spec_.relative_lines) {
      if (p_.functions[to[f]].line != 0) continue;
      Position at;
      const auto line = static_cast<std::uint64_t>(last_[line_position_]) + static_cast<std::uint64_t>(offset);
      store(line_position_, static_cast<std::int64_t>(line), at);
      p_.functions[to[f]].line = at.line;
    }
    for (FuncId f : r.spec_.first_lines)  // (in the file's order: two may be one function here)
      if (p_.functions[to[f]].line == 0) p_.functions[to[f]].line = rp.functions[f].line;
    for (CallId c = 0; c < rp.calls.size(); ++c) {
      if (c + kAhead < rp.calls.size())
        calls_.prefetch(FlatIndex::mix(to[rp.calls[c + kAhead].caller], to[rp.calls[c + kAhead].callee]));
      const FuncId caller = to[rp.calls[c].caller], callee = to[rp.calls[c].callee];
      CallId g = call_for(caller, callee);
      p_.calls[g].count = saturating_add(p_.calls[g].count, rp.calls[c].count);
      for (std::size_t e = 0; e < ne; ++e) p_.inclusive(g, e) = saturating_add(p_.inclusive(g, e), rp.inclusive(c, e));
    }
    if (r.spec_.saw_summary) p_.reported.summary = rp.reported.summary;
    if (r.spec_.saw_totals) p_.reported.totals = rp.reported.totals;
    if (ignored_headers_ == 0) first_ignored_ = r.first_ignored_;
    ignored_headers_ += r.ignored_headers_;
    by_valgrind_ = by_valgrind_ || r.by_valgrind_;  // (a creator: line after the cut)
    return true;
  }

  Expected<bool> dispatch(std::string_view line) {
    if (line.empty()) return true;
    char c = line[0];
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*') return cost_line(line);
    if (c == '#') return true;
    // Spec names are short: the first '=' or ':' in the first bytes decides
    // without scanning the (long) name after it.
    for (std::size_t i = 0; i < line.size() && i < 8; ++i) {
      if (line[i] == '=') return spec_line(line, i);
      if (line[i] == ':') return header_line(line, i);
    }
    std::size_t eq = line.find('=');
    std::size_t colon = line.find(':');
    if (eq != std::string_view::npos && (colon == std::string_view::npos || eq < colon)) return spec_line(line, eq);
    if (colon != std::string_view::npos) return header_line(line, colon);
    if (trim(line).empty()) return true;
    return fail(line_no_, 1,
                fmt::format("expected a cost line, a name spec such as 'fn=...', 'calls=' or "
                            "'key: value', found {}",
                            quote_input(line)));
  }

  // --- header -------------------------------------------------------------

  Expected<bool> header_line(std::string_view line, std::size_t colon) {
    std::string_view key = line.substr(0, colon);
    std::string_view value = trim(line.substr(colon + 1));
    if (spec_.on && (key == "events" || key == "positions" || key == "event")) return abandon();
    if (key == "events") return events_line(value, colon + 2);
    if (key == "positions") return positions_line(value, colon + 2);
    if (key == "event") return event_line(value);
    if (key == "version") {
      if (!value.empty() && value[0] >= '2' && value[0] <= '9')
        return fail(line_no_, colon + 3, fmt::format("expected format version 1, found {}", quote_input(value)));
      return true;
    }
    if (key == "summary" || key == "totals") return reported_line(key == "summary", line, colon + 1);
    if (key == "creator" && value.starts_with("callgrind-")) by_valgrind_ = true;
    static constexpr std::array<std::string_view, 6> kKept = {"creator", "pid", "cmd", "part", "thread", "desc"};
    for (std::string_view k : kKept) {
      if (key != k) continue;
      // The first part's header describes the run; later parts repeat it.
      // The value as written (callgrind_annotate prints desc: lines verbatim).
      if (keep_positions_ && !saw_body_)
        p_.metadata.emplace_back(p_.strings.intern(key), p_.strings.intern(line.substr(colon + 1)));
      return true;
    }
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

  std::string event_names() const {
    std::string s;
    for (const Event& e : p_.events) s += (s.empty() ? "" : " ") + std::string(p_.str(e.name));
    return s;
  }

  // `summary: costs` / `totals: costs`, per event column, trailing zeros
  // left out as on cost lines; the last line of each counts, as in
  // callgrind_annotate. Unreadable ones are ignored (they are recomputed).
  Expected<bool> reported_line(bool summary, std::string_view line, std::size_t at) {
    if (!saw_events_) return true;
    std::vector<Cost> costs;
    const char* p = line.data() + at;
    const char* end = line.data() + line.size();
    for (std::size_t column = 0;; ++column) {
      while (p < end && is_blank(*p)) ++p;
      if (p >= end) break;
      std::uint64_t v = 0;
      const char* q = p;
      while (p < end && *p >= '0' && *p <= '9' && p - q < 19) v = v * 10 + static_cast<std::uint64_t>(*p++ - '0');
      if (p == q || (p < end && !is_blank(*p)) || column >= columns_.size()) return true;
      std::uint32_t e = columns_[column];
      if (costs.size() <= e) costs.resize(e + 1, 0);
      costs[e] = static_cast<Cost>(std::min<std::uint64_t>(v, INT64_MAX));
    }
    (summary ? p_.reported.summary : p_.reported.totals) = std::move(costs);
    (summary ? spec_.saw_summary : spec_.saw_totals) = true;  // (an unreadable one changes nothing)
    return true;
  }

  // `event: Name[ = formula][ : Long name]`: the long name for viewers.
  Expected<bool> event_line(std::string_view value) {
    std::size_t colon = value.find(':');
    std::string_view name = trim(value.substr(0, std::min(value.find('='), colon)));
    if (name.empty() || colon == std::string_view::npos) return true;
    long_names_.emplace_back(p_.strings.intern(name), p_.strings.intern(trim(value.substr(colon + 1))));
    return true;
  }

  Expected<bool> events_line(std::string_view value, std::size_t col) {
    columns_.clear();
    std::string listed(value);
    auto ok = for_each_word(value, [&](std::string_view name, std::size_t i) -> Expected<bool> {
      StringId id = p_.strings.intern(name);
      std::size_t index = p_.events.size();
      for (std::size_t e = 0; e < p_.events.size(); ++e)
        if (p_.events[e].name == id) index = e;
      if (index == p_.events.size()) {
        if (!p_.functions.empty() || !p_.calls.empty())
          return fail(line_no_, col + i,
                      fmt::format("expected the events of the first part ({}), found {} with the new event {} "
                                  "(parts with different events cannot be summed)",
                                  event_names(), quote_input(listed), quote_input(name)));
        StringId long_name = kNoString;
        for (const auto& [n, l] : long_names_)
          if (n == id) long_name = l;
        p_.events.push_back({id, kNoString, 0, false, long_name});
      }
      columns_.push_back(static_cast<std::uint32_t>(index));
      return true;
    });
    if (!ok) return ok;
    if (columns_.empty()) return fail(line_no_, col, "expected at least one event name after 'events:', found none");
    saw_events_ = true;
    costs_.assign(p_.events.size(), 0);
    columns_distinct_ = true;
    for (std::size_t a = 0; a < columns_.size(); ++a)
      for (std::size_t b = a + 1; b < columns_.size(); ++b)
        columns_distinct_ = columns_distinct_ && columns_[a] != columns_[b];
    return true;
  }

  Expected<bool> positions_line(std::string_view value, std::size_t col) {
    positions_ = 0;
    line_position_ = address_position_ = -1;
    auto ok = for_each_word(value, [&](std::string_view name, std::size_t i) -> Expected<bool> {
      if (name != "line" && name != "instr" && name != "bb")
        return fail(line_no_, col + i,
                    fmt::format("expected position names instr, bb or line, found {}", quote_input(name)));
      if (positions_ == kMaxPositions)
        return fail(line_no_, col + i, fmt::format("expected at most {} position names, found more", kMaxPositions));
      if (name == "line") line_position_ = positions_;
      if (name == "instr") address_position_ = positions_;
      ++positions_;
      return true;
    });
    if (!ok) return ok;
    if (positions_ == 0) return fail(line_no_, col, "expected position names after 'positions:', found none");
    last_.fill(0);
    p_.positions = static_cast<std::uint8_t>((line_position_ >= 0 ? kPositionLine : 0) |
                                             (address_position_ >= 0 ? kPositionAddress : 0));
    return true;
  }

  // --- name specs and associations -----------------------------------------

  enum class Spec { kOb, kFl, kFi, kFn, kCob, kCfi, kCfn, kJfi, kJfn, kCalls, kJump, kJcnd, kOther };

  // One pass over the few bytes of a spec's name.
  static Spec spec_of(std::string_view spec) {
    switch (spec.size()) {
      case 2:
        if (spec == "ob") return Spec::kOb;
        if (spec == "fl") return Spec::kFl;
        if (spec == "fi" || spec == "fe") return Spec::kFi;
        if (spec == "fn") return Spec::kFn;
        break;
      case 3:
        if (spec == "cfn") return Spec::kCfn;
        if (spec == "cob") return Spec::kCob;
        if (spec == "cfi" || spec == "cfl") return Spec::kCfi;
        if (spec == "jfi") return Spec::kJfi;
        if (spec == "jfn") return Spec::kJfn;
        break;
      case 4:
        if (spec == "jump") return Spec::kJump;
        if (spec == "jcnd") return Spec::kJcnd;
        break;
      case 5:
      case 6:
        if (spec == "calls" || spec == "rcalls") return Spec::kCalls;
        break;
    }
    return Spec::kOther;
  }

  Expected<bool> spec_line(std::string_view line, std::size_t eq) {
    std::string_view spec = line.substr(0, eq);
    std::string_view value = line.substr(eq + 1);
    const Spec which = spec_of(spec);
    if (which == Spec::kCalls) return calls_line(value, eq + 2);
    if (which == Spec::kJump || which == Spec::kJcnd) return jump_line(which == Spec::kJcnd, value, eq + 2);
    Kind kind;
    if (which == Spec::kOb || which == Spec::kCob)
      kind = kObject;
    else if (which == Spec::kFl || which == Spec::kFi || which == Spec::kCfi || which == Spec::kJfi)
      kind = kFile;
    else if (which == Spec::kFn || which == Spec::kCfn || which == Spec::kJfn)
      kind = kFunction;
    else
      return fail(
          line_no_, 1,
          fmt::format("expected a name spec (ob fl fi fe fn cob cfi cfl cfn jfi jfn), found {}", quote_input(spec)));
    StringId name = kNoString;
    if (auto ok = resolve_name(kind, line, eq + 2, name); !ok) return ok;
    saw_body_ = true;
    switch (which) {
      case Spec::kOb:
        ob_ = name;
        current_ = kNoFunction;
        break;
      case Spec::kFl:
        fl_ = fi_ = name;
        current_ = kNoFunction;
        break;
      case Spec::kFi:
        fi_ = name;
        file_switch_pending_ = true;
        spec_.fsp_known = true;
        break;
      case Spec::kFn:
        // Valgrind never puts fi= right before fn=; converters that do (e.g.
        // the one behind gprof2dot's bzr sample) mean the function's file.
        if (file_switch_pending_) fl_ = fi_;
        spec_.fsp_used = spec_.fsp_used || !spec_.fsp_known;
        file_switch_pending_ = false;
        spec_.fsp_known = true;
        fn_ = name;
        fn_set_ = true;
        fi_ = fl_;
        current_ = kNoFunction;
        break;
      case Spec::kCob:
        cob_ = name;
        cob_set_ = spec_.cob_known = true;
        break;
      case Spec::kCfi:
        cfi_ = name;
        cfi_set_ = spec_.cfi_known = true;
        break;
      case Spec::kCfn:
        cfn_ = name;
        cfn_set_ = true;
        break;
      case Spec::kJfi:
        jfi_ = name;
        jfi_set_ = true;
        break;
      case Spec::kJfn:
        jfn_ = name;
        jfn_set_ = true;
        break;
      default:
        break;
    }
    return true;
  }

  Expected<bool> resolve_name(Kind kind, std::string_view line, std::size_t col, StringId& out) {
    std::string_view value = line.substr(col - 1);
    std::vector<StringId>& table = names_[kind];
    if (value.size() >= 2 && value[0] == '(' && value[1] >= '0' && value[1] <= '9') {
      std::size_t close = value.find(')');
      std::uint64_t id = 0;
      if (close == std::string_view::npos || !parse_u64(value.substr(1, close - 1), id) || id > (1u << 24))
        return fail(line_no_, col,
                    fmt::format("expected a name id '(N)' below 16777216, found {}", quote_input(value)));
      std::string_view name = trim(value.substr(close + 1));
      if (!name.empty()) {
        if (table.size() <= id) table.resize(id + 1, kUndefined);
        table[id] = out = p_.strings.intern(name);
        return true;
      }
      if (id >= table.size() || table[id] == kUndefined) {
        if (spec_.on) {  // (defined before the cut, or nowhere: absorb() tells)
          std::vector<bool>& asked = spec_.asked[kind];
          if (asked.size() <= id) asked.resize(id + 1, false);
          asked[id] = true;
          out = name_id(kind, id);
          return true;
        }
        if (undefined_ids_++ == 0) {
          first_undefined_ = std::string(line);
          first_undefined_line_ = line_no_;
        }
        out = kNoString;
        return true;
      }
      out = table[id];
      return true;
    }
    out = p_.strings.intern(trim(value));
    return true;
  }

  // Parses `count` (or `followed/executed`) at the start of `value`.
  static bool leading_count(std::string_view& value, std::uint64_t& count) {
    std::size_t sp = 0;
    while (sp < value.size() && !is_blank(value[sp])) ++sp;
    if (!parse_u64(value.substr(0, sp), count)) return false;
    value.remove_prefix(sp);
    return true;
  }

  Expected<bool> calls_line(std::string_view value, std::size_t col) {
    if (in_call_) return fail(line_no_, 1, "expected the cost line of the previous call, found another 'calls='");
    value = trim(value);
    std::string_view rest = value;
    std::uint64_t count = 0;
    if (!leading_count(rest, count))
      return fail(line_no_, col,
                  fmt::format("expected 'calls=<count> <target position>', found {}", quote_input(value)));
    if (!cfn_set_) return fail(line_no_, 1, "expected 'cfn=' before 'calls=', found none");
    in_call_ = true;
    call_count_ = static_cast<std::int64_t>(std::min<std::uint64_t>(count, INT64_MAX));
    return read_target(rest, target_);
  }

  Expected<bool> jump_line(bool conditional, std::string_view value, std::size_t col) {
    value = trim(value);
    std::string_view rest = value;
    std::uint64_t followed = 0, executed = 0;
    bool ok = false;
    if (conditional) {
      std::size_t slash = rest.find('/');
      std::size_t sp = 0;
      while (sp < rest.size() && !is_blank(rest[sp])) ++sp;
      if (slash != std::string_view::npos && slash < sp && parse_u64(rest.substr(0, slash), followed) &&
          parse_u64(rest.substr(slash + 1, sp - slash - 1), executed)) {
        rest.remove_prefix(sp);
        ok = true;
      }
    } else {
      ok = leading_count(rest, followed);
    }
    if (!ok)
      return fail(line_no_, col,
                  fmt::format("expected '{}' and a target position, found {}",
                              conditional ? "jcnd=<followed>/<executed>" : "jump=<count>", quote_input(value)));
    in_jump_ = true;
    jump_.count = static_cast<std::int64_t>(std::min<std::uint64_t>(followed, INT64_MAX));
    jump_.executed =
        conditional ? static_cast<std::int64_t>(std::min<std::uint64_t>(executed, INT64_MAX)) : kUnknownCount;
    return read_target(rest, target_);
  }

  struct Position {
    std::uint32_t line = 0;
    std::uint64_t address = 0;
  };

  // A target position: relative to the last cost line, which it does not
  // change. Missing subpositions are 0 (KCacheGrind reads it so).
  Expected<bool> read_target(std::string_view text, Position& out) {
    out = {};
    const char* p = text.data();
    const char* end = p + text.size();
    for (int k = 0; k < positions_; ++k) {
      while (p < end && is_blank(*p)) ++p;
      if (p >= end) break;
      std::int64_t v;
      const char* token = p;
      if (!read_subposition(p, end, last_[k], v)) return bad_position(text, token);
      store(k, v, out);
    }
    return true;
  }

  void store(int k, std::int64_t v, Position& out) const {
    if (k == line_position_) out.line = v < 0 ? 0 : static_cast<std::uint32_t>(std::min<std::int64_t>(v, UINT32_MAX));
    if (k == address_position_) out.address = static_cast<std::uint64_t>(v);
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
          f.name = name;
          f.object = object;
          f.has_object = object != kNoString;
          f.file = file;
          f.calls = 0;  // callgrind knows every call: a function never called shows 0x
          return p_.add_function(f);
        });
  }
  // The call from `caller` to `callee`, added with zero costs the first time.
  CallId call_for(FuncId caller, FuncId callee) {
    return calls_.find_or_add(
        FlatIndex::mix(caller, callee),
        [&](std::uint32_t id) { return p_.calls[id].caller == caller && p_.calls[id].callee == callee; },
        [&] {
          return p_.add_call({caller, callee, 0});
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
    return fail(
        line_no_, col + 1,
        fmt::format("expected a position (N, 0xN, +N, -N or *), found {}", quote_input(line.substr(col, e - col))));
  }
  [[gnu::noinline]] Error bad_cost(std::string_view line, const char* at, bool too_many) const {
    std::size_t col = static_cast<std::size_t>(at - line.data());
    std::size_t e = col;
    while (e < line.size() && !is_blank(line[e])) ++e;
    std::string_view tok = line.substr(col, e - col);
    if (too_many)
      return fail(
          line_no_, col + 1,
          fmt::format("expected at most {} cost(s), one per event, found more: {}", columns_.size(), quote_input(tok)));
    return fail(line_no_, col + 1, fmt::format("expected an unsigned integer cost, found {}", quote_input(tok)));
  }

  // Parses one subposition at `p` (after blanks); false on a malformed one.
  // Relative values wrap like the unsigned addresses they stand for. It
  // ends at `end`, a blank, or a line's '\n' (when `end` is past the line).
  // With `kNewlineAhead`, the caller knows a '\n' comes at or after `p`
  // before `end`: every loop stops there, so none checks `end`.
  template <bool kNewlineAhead = false>
  [[gnu::always_inline]] static bool read_subposition(const char*& p, const char* end, std::int64_t last,
                                                      std::int64_t& out) {
    auto before_end = [&](const char* at) { return kNewlineAhead || at < end; };
    if (!before_end(p)) return false;
    char c = *p;
    if (c == '*') {
      ++p;
      out = last;
    } else if (c == '+' || c == '-') {
      const char* q = ++p;
      std::uint64_t v = 0;
      while (before_end(p) && *p >= '0' && *p <= '9' && p - q < 18) v = v * 10 + static_cast<std::uint64_t>(*p++ - '0');
      if (p == q) return false;
      auto base = static_cast<std::uint64_t>(last);
      out = static_cast<std::int64_t>(c == '+' ? base + v : base - v);
    } else if (c == '0' && before_end(p + 1) && (p[1] == 'x' || p[1] == 'X')) {
      p += 2;
      const char* q = p;
      std::uint64_t v = 0;
      for (; before_end(p) && p - q < 16; ++p) {
        int d = *p >= '0' && *p <= '9'   ? *p - '0'
                : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
                : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10
                                         : -1;
        if (d < 0) break;
        v = v << 4 | static_cast<std::uint64_t>(d);
      }
      if (p == q) return false;
      out = static_cast<std::int64_t>(v);
    } else {
      const char* q = p;
      std::uint64_t v = 0;
      while (before_end(p) && *p >= '0' && *p <= '9' && p - q < 18) v = v * 10 + static_cast<std::uint64_t>(*p++ - '0');
      if (p == q) return false;
      out = static_cast<std::int64_t>(v);
    }
    return !before_end(p) || is_blank(*p) || *p == '\n';
  }

  // Nine lines in ten of a file read for a graph: a self cost of the
  // current function, whose positions are not kept. Does what cost_line()
  // does with it, in one pass and no more; or nothing (false) when the
  // line is anything else, a malformed one included, for cost_line() to
  // read (and report) as ever.
  bool quick_self_line(std::string_view line) {
    if (line.empty() || keep_positions_ || in_call_ || in_jump_ || current_ == kNoFunction || columns_.empty())
      return false;
    const char c = line[0];
    if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*')) return false;
    const char* p = line.data();
    const char* end = p + line.size();
    std::int64_t position[kMaxPositions];
    for (int k = 0; k < positions_; ++k) {
      while (p < end && is_blank(*p)) ++p;
      if (!read_subposition(p, end, last_[k], position[k])) return false;
    }
    std::size_t column = 0;
    std::uint32_t given = 0;
    for (;;) {
      while (p < end && is_blank(*p)) ++p;
      if (p >= end) break;
      const char* q = p;
      std::uint64_t v = 0;  // at most 18 digits: below INT64_MAX (longer ones: cost_line)
      while (p < end && *p >= '0' && *p <= '9' && p - q < 18) v = v * 10 + static_cast<std::uint64_t>(*p++ - '0');
      if (p == q || (p < end && !is_blank(*p)) || column >= columns_.size()) return false;
      given = std::max<std::uint32_t>(given, columns_[column] + 1);
      costs_[columns_[column++]] = static_cast<Cost>(v);
    }
    for (std::size_t k = column; k < columns_.size(); ++k) costs_[columns_[k]] = 0;
    Position at;
    for (int k = 0; k < positions_; ++k) {
      last_[k] = position[k];
      store(k, position[k], at);
    }
    given_ = given;
    saw_body_ = true;
    file_switch_pending_ = false;
    spec_.fsp_known = true;
    if (!spec_.line_known) note_positions(line);
    add_self(current_, at);
    return true;
  }

  // The self cost lines that follow one quick_self_line() read, parsed
  // straight from the bytes (line end included) while add_self() would do
  // nothing but add and give the function its first line: the line number
  // is known, each column is another event; and the jumps among them, whose
  // lines only move the positions when they are not kept. Stops before any
  // other line — a call, a name, a '\r', a malformed or too long number, no
  // newline at the end — and before the next line a checkpoint looks at,
  // leaving those to the scanner. Ends as reading each line alone would: the last line's
  // positions, the row's saturating sums. (costs_ is only scratch here:
  // every line read after rewrites it whole, and given_ is for kept
  // positions.)
  void self_line_run(LineScanner& scanner, std::size_t line_base) {
    if (!spec_.line_known || !columns_distinct_) return;
    // Compiled for the usual shapes (one or two positions, one event), so
    // that what a line needs stays in registers.
    const bool one = columns_.size() == 1;
    if (positions_ == 1) return one ? run_of<1, true>(scanner, line_base) : run_of<1, false>(scanner, line_base);
    if (positions_ == 2) return one ? run_of<2, true>(scanner, line_base) : run_of<2, false>(scanner, line_base);
    run_of<0, false>(scanner, line_base);
  }

  // self_line_run() for `P` positions (0: positions_) and, with `kOne`, the
  // one cost column summed in a register.
  template <int P, bool kOne>
  [[gnu::noinline]] void run_of(LineScanner& scanner, std::size_t line_base) {
    const std::size_t next_line = line_base + scanner.line_number() + 1;
    const std::size_t room = (4096 - (next_line & 4095)) & 4095;  // lines before a checkpoint
    const std::string_view rest = scanner.rest();
    const char* p = rest.data();
    const char* const end = p + rest.size();
    // (Locals: the compiler cannot tell the stores below from members.)
    const std::size_t ne = p_.events.size();
    Cost* const row = p_.self_cost.data() + static_cast<std::size_t>(current_) * ne;
    Cost* const costs = costs_.data();
    std::int64_t* const first_line = &p_.functions[current_].line;
    const std::uint32_t* const cols = columns_.data();
    const std::size_t ncols = columns_.size();
    const int positions = P ? P : positions_, line_position = line_position_;
    std::array<std::int64_t, kMaxPositions> last = last_;
    Cost one_cost = 0;                   // (kOne: the line's cost)
    Cost sum = kOne ? row[cols[0]] : 0;  // (kOne: the row's, until the run ends)
    // One cost line's positions (into `position`) and costs (into costs_, or
    // one_cost, `columns` of them) from `q` to its '\n'; false on anything else.
    auto cost_line_at = [&](const char*& q, std::array<std::int64_t, kMaxPositions>& position, std::size_t& columns)
        __attribute__((always_inline)) {
      // (Lines starting before newline_end end with a '\n' there or before
      // it, which stops every loop: none checks the end.)
      const char c = *q;
      if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*')) return false;
      for (int k = 0; k < positions; ++k) {
        while (is_blank(*q)) ++q;
        if (!read_subposition<true>(q, end, last[k], position[k])) return false;
      }
      columns = 0;
      for (;;) {
        while (is_blank(*q)) ++q;
        if (*q == '\n') return true;
        const char* d = q;
        std::uint64_t v = 0;  // at most 18 digits, as quick_self_line()
        while (*q >= '0' && *q <= '9' && q - d < 18) v = v * 10 + static_cast<std::uint64_t>(*q++ - '0');
        if (q == d || !(is_blank(*q) || *q == '\n') || columns >= ncols) return false;
        if constexpr (kOne)
          one_cost = static_cast<Cost>(v);
        else
          costs[cols[columns]] = static_cast<Cost>(v);
        ++columns;
      }
    };
    const char* const last_newline = static_cast<const char*>(memrchr(p, '\n', static_cast<std::size_t>(end - p)));
    const char* const newline_end = last_newline ? last_newline + 1 : p;  // (a last line cut short: the scanner's)
    std::size_t lines = 0;
    // (The positions are copied one at a time, as they were stored: a
    // vector load of two narrow stores just made waits for both to retire,
    // a quarter of this loop's time; the empty asm keeps the compiler from
    // merging the copies.)
    std::array<std::int64_t, kMaxPositions> position;
    auto take = [&]() __attribute__((always_inline)) {
      for (int k = 0; k < positions; ++k) {
        std::int64_t v = position[k];
        asm("" : "+r"(v));
        last[k] = v;
      }
    };
    std::size_t columns = 0;
    while (lines < room && p < newline_end) {
      const char* q = p;
      if (*p == 'j') {
        // A jump (jump= or jcnd=, then its source's position line): kept
        // only with positions, but read as ever, relative positions and all.
        if (jfn_set_) break;  // (its target may be new: made there, it would move the tables above)
        const char* nl = jump_end(p, end, last, positions);
        if (nl == nullptr) break;
        ++lines;
        p = q = nl + 1;
        if (lines == room || p >= newline_end || !cost_line_at(q, position, columns))
          break;  // (cost_line() finishes it)
        take();
        finish_jump(current_, Position{});
        ++lines;
        p = q + 1;
        continue;
      }
      if (!cost_line_at(q, position, columns)) break;
      if constexpr (kOne) {
        if (columns == 1) sum = saturating_add(sum, one_cost);
      } else {
        for (std::size_t k = 0; k < columns; ++k) row[cols[k]] = saturating_add(row[cols[k]], costs[cols[k]]);
      }
      take();
      if (*first_line == 0 && line_position >= 0) {
        Position at;
        store(line_position, position[line_position], at);
        *first_line = at.line;
        if (spec_.on && at.line != 0) spec_.first_lines.push_back(current_);
      }
      ++lines;
      p = q + 1;
    }
    if constexpr (kOne) row[cols[0]] = sum;
    if (lines == 0) return;
    last_ = last;
    scanner.skip_to(scanner.position() + static_cast<std::size_t>(p - rest.data()), lines);
  }

  // The '\n' ending the jump line at `q`, then in a jump; null for any
  // other line, which dispatch() reads (and reports). Only the plain form
  // valgrind writes, "jump=N" or "jcnd=N/M" (at most 18 digits each) and
  // blank-separated target subpositions, nothing else, is read here, in
  // one pass: what jump_line() keeps besides is for kept positions.
  const char* jump_end(const char* q, const char* end, const std::array<std::int64_t, kMaxPositions>& last,
                       int positions) {
    const char* nl = plain_jump_end(q, end, last, positions);
    if (nl != nullptr) in_jump_ = true;
    return nl;
  }

  static const char* plain_jump_end(const char* q, const char* end, const std::array<std::int64_t, kMaxPositions>& last,
                                    int positions) {
    if (end - q < 6 || (std::memcmp(q, "jcnd=", 5) != 0 && std::memcmp(q, "jump=", 5) != 0)) return nullptr;
    const bool jcnd = q[1] == 'c';
    q += 5;
    for (int count = 0; count < (jcnd ? 2 : 1); ++count) {
      if (count == 1 && (q >= end || *q++ != '/')) return nullptr;
      const char* d = q;
      while (q < end && *q >= '0' && *q <= '9' && q - d < 18) ++q;
      if (q == d) return nullptr;
    }
    for (int k = 0; k < positions; ++k) {
      if (q >= end || !is_blank(*q)) break;
      while (q < end && is_blank(*q)) ++q;
      std::int64_t v;
      if (q >= end || *q == '\n' || !read_subposition(q, end, last[k], v)) return nullptr;
    }
    while (q < end && is_blank(*q)) ++q;
    return q < end && *q == '\n' ? q : nullptr;
  }

  // A self cost line's costs_ added to `f`, which it may give its first line.
  void add_self(FuncId f, const Position& at) {
    cob_set_ = false;
    spec_.cob_known = true;
    if (p_.functions[f].line == 0) {  // its first source line
      if (spec_.line_known) {
        p_.functions[f].line = at.line;
        if (spec_.on && at.line != 0) spec_.first_lines.push_back(f);
      } else if (spec_.relative_lines.size() < kMaxRelativeLines)
        spec_.relative_lines.emplace_back(f, last_[line_position_]);
      else
        stop_relative_ = true;
    }
    const std::size_t ne = p_.events.size();
    Cost* row = p_.self_cost.data() + static_cast<std::size_t>(f) * ne;
    const Cost* add = costs_.data();
    for (std::size_t e = 0; e < ne; ++e) row[e] = saturating_add(row[e], add[e]);
  }

  Expected<bool> cost_line(std::string_view line) {
    if (!saw_events_ && p_.events.empty())
      return fail(line_no_, 1, "expected an 'events:' line before the first cost line, found none");
    saw_body_ = true;
    const char* p = line.data();
    const char* end = p + line.size();
    Position at;
    for (int k = 0; k < positions_; ++k) {
      while (p < end && is_blank(*p)) ++p;
      const char* token = p;
      std::int64_t v;
      if (!read_subposition(p, end, last_[k], v)) return bad_position(line, token);
      last_[k] = v;
      store(k, v, at);
    }
    // Events absent from this part's columns stay 0 in costs_; only the
    // columns this line leaves out need clearing (no memset per line).
    std::size_t column = 0;
    given_ = 0;
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
      given_ = std::max<std::uint32_t>(given_, columns_[column] + 1);
      costs_[columns_[column++]] = static_cast<Cost>(std::min<std::uint64_t>(v, INT64_MAX));
    }
    for (std::size_t c = column; c < columns_.size(); ++c) costs_[columns_[c]] = 0;
    file_switch_pending_ = false;
    spec_.fsp_known = true;
    if (!spec_.line_known) note_positions(line);
    FuncId caller = kNoFunction;
    if (auto ok = current_function(1, caller); !ok) return ok;
    if (in_jump_) return finish_jump(caller, at);
    const std::size_t ne = p_.events.size();
    if (in_call_) {
      in_call_ = false;
      spec_.cob_used = spec_.cob_used || !spec_.cob_known;
      spec_.cfi_used = spec_.cfi_used || !spec_.cfi_known;
      spec_.cfi_known = true;
      StringId callee_object = cob_set_ ? cob_ : ob_;
      FuncId callee = function_for(cfn_, callee_object, cfi_set_ ? cfi_ : fi_);
      // The spec scopes cob=/cfi= to one call; gprof2dot keeps cob= until
      // the next self cost line, which decides the module of a merged
      // function in its name-only mode.
      if (!merge_by_name_) {
        cob_set_ = false;
        spec_.cob_known = true;
      }
      callee_file_implicit_ = !cfi_set_;
      cfi_set_ = false;
      CallId c = call_for(caller, callee);
      p_.calls[c].count = saturating_add(p_.calls[c].count, call_count_);
      p_.functions[callee].calls = saturating_add(p_.functions[callee].calls, call_count_);
      for (std::size_t e = 0; e < ne; ++e) p_.inclusive(c, e) = saturating_add(p_.inclusive(c, e), costs_[e]);
      if (keep_positions_) add_call_site(c, at);
      return true;
    }
    add_self(caller, at);
    if (keep_positions_) add_line_cost(caller, at);
    return true;
  }

  void add_line_cost(FuncId f, const Position& at) {
    const std::size_t ne = p_.events.size();
    std::uint32_t row = lines_.find_or_add(
        f, FlatIndex::mix(fi_, at.line, at.address),
        [&](std::uint32_t r) {
          const LineCost& lc = p_.line_costs[r];
          return lc.function == f && lc.file == fi_ && lc.line == at.line && lc.address == at.address;
        },
        [&] {
          p_.line_costs.push_back({f, fi_, at.line, 0, at.address});
          p_.line_cost_values.resize(p_.line_cost_values.size() + ne, 0);
          return static_cast<std::uint32_t>(p_.line_costs.size() - 1);
        },
        [&](std::uint32_t r) {
          const LineCost& lc = p_.line_costs[r];
          return FlatIndex::mix(lc.file, lc.line, lc.address);
        });
    p_.line_costs[row].columns = std::max(p_.line_costs[row].columns, given_);
    Cost* values = &p_.line_cost_values[static_cast<std::size_t>(row) * ne];
    for (std::size_t e = 0; e < ne; ++e) values[e] = saturating_add(values[e], costs_[e]);
  }

  void add_call_site(CallId c, const Position& at) {
    const std::size_t ne = p_.events.size();
    CallSite key{c, fi_, at.line, 0, at.address, target_.line, target_.address, 0, callee_file_implicit_};
    std::uint32_t row = sites_.find_or_add(
        FlatIndex::mix(c, FlatIndex::mix(key.file, key.line, key.address),
                       FlatIndex::mix(key.target_line, key.target_address)),
        [&](std::uint32_t r) {
          const CallSite& s = p_.call_sites[r];
          return s.call == c && s.file == key.file && s.line == key.line && s.address == key.address &&
                 s.target_line == key.target_line && s.target_address == key.target_address;
        },
        [&] {
          p_.call_sites.push_back(key);
          p_.call_site_cost.resize(p_.call_site_cost.size() + ne, 0);
          return static_cast<std::uint32_t>(p_.call_sites.size() - 1);
        });
    p_.call_sites[row].count = saturating_add(p_.call_sites[row].count, call_count_);
    p_.call_sites[row].columns = std::max(p_.call_sites[row].columns, given_);
    Cost* values = &p_.call_site_cost[static_cast<std::size_t>(row) * ne];
    for (std::size_t e = 0; e < ne; ++e) values[e] = saturating_add(values[e], costs_[e]);
  }

  // The position line after jump=/jcnd= is the jump's source.
  Expected<bool> finish_jump(FuncId f, const Position& at) {
    in_jump_ = false;
    // The target (jfn=) is a function of the profile whether the jump is
    // kept or not, and made where a read keeping positions makes it: a
    // function seen only there, or there first, is the same and in the
    // same place in either read.
    const FuncId target = jfn_set_ ? function_for(jfn_, ob_, jfi_set_ ? jfi_ : fl_) : f;
    if (keep_positions_) {
      Jump j = jump_;
      j.function = f;
      j.file = fi_;
      j.line = at.line;
      j.address = at.address;
      j.target = target;
      j.target_file = jfi_set_ ? jfi_ : fi_;
      j.target_line = target_.line;
      j.target_address = target_.address;
      add_jump(j);
    }
    jfi_set_ = jfn_set_ = false;
    return true;
  }

  // A jump's row: one per (source, target, kind), as the merge keys them,
  // its counts summed (a lone file's profile is the merged one).
  static std::uint64_t jump_hash(const Jump& j) {  // (its function is the index's owner)
    return FlatIndex::mix(FlatIndex::mix(j.file, j.line, j.address),
                          FlatIndex::mix(j.target, j.target_file, FlatIndex::mix(j.target_line, j.target_address)),
                          j.conditional());
  }

  void add_jump(const Jump& j) {
    std::uint32_t row = jumps_.find_or_add(
        j.function, jump_hash(j), [&](std::uint32_t r) { return p_.jumps[r].same_row(j); },
        [&] {
          p_.jumps.push_back(j.empty_row());
          return static_cast<std::uint32_t>(p_.jumps.size() - 1);
        },
        [&](std::uint32_t r) { return jump_hash(p_.jumps[r]); });
    p_.jumps[row].add(j);
  }

  static constexpr StringId kUndefined = UINT32_MAX;
  static constexpr std::size_t kMaxRelativeLines = std::size_t{1} << 16;

  Profile& p_;
  Diagnostics& diag_;
  bool merge_by_name_;
  bool keep_positions_;
  std::size_t budget_;
  std::string path_;
  bool ends_with_newline_ = false;
  std::size_t line_no_ = 0;
  Speculation spec_;
  bool stop_relative_ = false;                     // too many relative_lines: abandoned
  const std::atomic<bool>* stop_ = nullptr;        // the first half failed
  std::atomic<bool>* half_budget_stop_ = nullptr;  // the first half past half the budget: stop the second
  std::array<std::vector<StringId>, 3> names_;
  std::vector<std::pair<StringId, StringId>> long_names_;
  StringId ob_ = kNoString, fl_ = kNoString, fi_ = kNoString, fn_ = kNoString, cob_ = kNoString, cfi_ = kNoString,
           cfn_ = kNoString, jfi_ = kNoString, jfn_ = kNoString;
  bool fn_set_ = false, cfn_set_ = false, cob_set_ = false, cfi_set_ = false, jfi_set_ = false, jfn_set_ = false;
  FuncId current_ = kNoFunction;
  bool in_call_ = false, in_jump_ = false;
  bool saw_body_ = false;
  bool by_valgrind_ = false;          // creator: callgrind-X.Y.Z (it ends each dump with totals:)
  bool file_switch_pending_ = false;  // fi=/fe= seen since the last cost line
  std::int64_t call_count_ = 0;
  bool callee_file_implicit_ = false;
  Position target_;
  Jump jump_;
  int positions_ = 1;
  int line_position_ = 0;
  int address_position_ = -1;
  std::array<std::int64_t, kMaxPositions> last_{};
  std::vector<std::uint32_t> columns_;  // cost column -> event index
  bool columns_distinct_ = true;        // no event named twice in 'events:'
  std::uint32_t given_ = 0;             // this cost line's last written event + 1
  std::vector<Cost> costs_;
  bool saw_events_ = false;
  FlatIndex functions_;         // (name, object, file) -> FuncId
  FlatIndex calls_;             // (caller, callee) -> CallId
  GroupedIndex lines_, jumps_;  // each function's rows
  FlatIndex sites_;
  std::size_t ignored_headers_ = 0;
  std::string first_ignored_;
  std::size_t undefined_ids_ = 0;
  std::string first_undefined_;
  std::size_t first_undefined_line_ = 0;
};

// The start of the first `fn=` line at or after `from` (never the first
// line), or npos.
std::size_t cut_at(std::string_view bytes, std::size_t from) {
  std::size_t at = bytes.find("\nfn=", from == 0 ? 0 : from - 1);
  return at == std::string_view::npos ? at : at + 1;
}

}  // namespace

Expected<Profile> read_from(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag,
                            std::size_t from, bool* split_used) {
  Profile p;
  Reader reader(p, options, diag);
  const std::size_t cut = cut_at(input.bytes(), from);
  if (auto ok = reader.read_file(input, cut, split_used); !ok) return ok.error();
  reader.finish();
  if (p.events.empty())
    return bad_input(
        at_end(input.path(), input.bytes(), "expected an 'events:' line, found none (not a callgrind profile?)"));
  return p;
}

Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  const std::size_t size = input.bytes().size();
  return read_from(input, options, diag, size > kSplitAbove ? size / 2 : std::string_view::npos);
}

}  // namespace graphgen::callgrind
