#include "reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <memory>
#include <unordered_map>
#include <vector>

#include "common/archive_lib.h"
#include "graphgen/analysis/stacks.h"
#include "graphgen/text.h"

namespace graphgen::sleepy {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The archive read from memory by libarchive, as a zip through its central
// directory (as libzip read it before: a cut archive is refused at once, not
// read in part). libarchive reads CUBE4's tar files too: one archive library
// in the process, not two (libzip brought libcrypto, loaded at every start).
using Archive = formats::ArchiveReader;

// Where an archive that does not open went wrong: its first byte when it
// does not begin as a zip does ("PK"), else its end, where a zip's list of
// members is read from (a zip cut short has lost it).
std::size_t directory_offset(const InputFile& in) { return in.bytes().starts_with("PK") ? in.bytes().size() : 0; }

Expected<bool> open_zip(Archive& ar, const InputFile& in) {
  if (!ar.a) return bad_input(fmt::format("{}: cannot read it: out of memory", in.path()));
  ar.lib.support_format_zip_seekable(ar.a);
  if (ar.lib.open_memory(ar.a, in.bytes().data(), in.bytes().size()) != ARCHIVE_OK)
    return bad_input(fmt::format(
        "{}:+0x{:x}: expected a Very Sleepy profile (a zip archive), found bytes libarchive cannot open: {}", in.path(),
        directory_offset(in), ar.why("unreadable")));
  return true;
}

// Opens `in` and moves to its first member called `name`, in any case.
Expected<bool> open_member(Archive& ar, const InputFile& in, std::string_view name) {
  if (auto ok = open_zip(ar, in); !ok) return ok;
  const std::string want = lower(name);
  for (;;) {
    archive_entry* e = nullptr;
    const int rc = ar.lib.next_header(ar.a, &e);
    if (rc == ARCHIVE_EOF)
      return bad_input(fmt::format("{}:+0x{:x}: expected the member {} in this Very Sleepy archive, found none",
                                   in.path(), in.bytes().size(), name));
    if (rc < ARCHIVE_WARN)
      return bad_input(fmt::format("{}:+0x{:x}: cannot read its list of members: {}", in.path(), in.bytes().size(),
                                   ar.why("unreadable")));
    const char* member_name = ar.lib.entry_pathname(e);
    if (member_name && lower(member_name) == want) return true;
  }
}

// The lines of a member, inflated 64 KiB at a time: fn(line, number) for
// each (without its '\n' and a trailing '\r'), so a member of any size
// needs memory for its longest line only (at most `limit` bytes: a zip can
// claim any size). fn returns false to stop; its error is then the result.
template <class Fn>
Expected<bool> each_line(const InputFile& in, std::string_view name, std::size_t limit, Fn&& fn) {
  auto api = formats::archive_api(in.path());
  if (!api) return api.error();
  Archive ar{**api};
  if (auto ok = open_member(ar, in, name); !ok) return ok;
  std::string pending;  // the start of a line the last chunk cut
  std::vector<char> buffer(std::size_t{1} << 16);
  std::size_t number = 0;
  auto one = [&](std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return fn(line, ++number);
  };
  const std::string& path = in.path();
  // How far into the archive the inflating is, for the read's progress.
  PassedPages passed(&in);
  for (;;) {
    const la_int64_t at = ar.lib.filter_bytes(ar.a, -1);
    if (at > 0) passed.at(static_cast<std::size_t>(at));
    const la_ssize_t got = ar.lib.read_data(ar.a, buffer.data(), buffer.size());
    if (got < 0)
      return bad_input(fmt::format("{}:+0x{:x}: cannot read its member {}: {}", path, std::max<la_int64_t>(at, 0), name,
                                   ar.why("unreadable")));
    if (got == 0) break;
    std::string_view chunk(buffer.data(), static_cast<std::size_t>(got));
    for (std::size_t nl; (nl = chunk.find('\n')) != std::string_view::npos; chunk.remove_prefix(nl + 1)) {
      if (pending.empty()) {
        if (auto ok = one(chunk.substr(0, nl)); !ok) return ok;
      } else {
        pending.append(chunk.substr(0, nl));
        if (auto ok = one(pending); !ok) return ok;
        pending.clear();
      }
    }
    if (limit && pending.size() + chunk.size() > limit)
      return bad_input(formats::over_budget_message(path + " (" + std::string(name) + ")", limit, 0, 1));
    pending.append(chunk);
  }
  if (!pending.empty())
    if (auto ok = one(pending); !ok) return ok;
  return true;
}

// A member read whole (at most `limit` bytes).
Expected<std::string> member(const InputFile& in, std::string_view name, std::size_t limit) {
  std::string out;
  const std::string& path = in.path();
  auto ok = each_line(in, name, limit, [&](std::string_view line, std::size_t) -> Expected<bool> {
    if (limit && out.size() + line.size() + 1 > limit)
      return bad_input(formats::over_budget_message(path + " (" + std::string(name) + ")", limit, 0, 1));
    out.append(line).append(1, '\n');
    return true;
  });
  if (!ok) return ok.error();
  return out;
}

// id blanks "module" blanks "procname" blanks "sourcefile" blanks digits
bool symbol_line(std::string_view line, std::string_view& id, std::string_view& module, std::string_view& proc) {
  std::size_t i = 0;
  while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_')) ++i;
  if (i == 0) return false;
  id = line.substr(0, i);
  std::string_view quoted[3];
  for (std::string_view& q : quoted) {
    std::size_t start = i;
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i == start || i >= line.size() || line[i] != '"') return false;
    std::size_t close = line.find('"', i + 1);
    if (close == std::string_view::npos) return false;
    q = line.substr(i + 1, close - i - 1);
    i = close + 1;
  }
  std::size_t start = i;
  while (i < line.size() && is_blank(line[i])) ++i;
  std::uint64_t n;
  if (i == start || !parse_u64(line.substr(i), n)) return false;
  module = quoted[0];
  proc = quoted[1];
  return true;
}

// Symbols.txt's ids. Very Sleepy writes "sym" and a decimal number: those
// are found by their number in a table (at most one slot per byte of
// Symbols.txt, so a hostile number costs nothing); any other id, "sym01"
// included, by its text in a map. A hash and a comparison of the id's
// text per frame were two fifths of reading a 126 MB Callstacks.txt.
class SymbolIds {
 public:
  explicit SymbolIds(std::size_t symbols_bytes) : most_(symbols_bytes) {}
  /// `id` names `f` (a later line with the same id wins, as gprof2dot's dict).
  void set(std::string_view id, FuncId f) {
    if (const std::size_t n = number(id); n != kNoNumber) {
      if (n >= by_number_.size()) by_number_.resize(n + 1, kNone);
      by_number_[n] = f;
    } else {
      by_text_[id] = f;
    }
  }
  /// The function `id` names, or kNone.
  FuncId find(std::string_view id) const {
    if (const std::size_t n = number(id); n != kNoNumber) return n < by_number_.size() ? by_number_[n] : kNone;
    auto it = by_text_.find(id);
    return it == by_text_.end() ? kNone : it->second;
  }
  static constexpr FuncId kNone = UINT32_MAX;

 private:
  static constexpr std::size_t kNoNumber = SIZE_MAX;
  // N of "symN" written as %d writes it (no sign, no leading zero), below
  // most_; else kNoNumber.
  std::size_t number(std::string_view id) const {
    if (id.size() < 4 || id.size() > 3 + 18 || id.compare(0, 3, "sym") != 0 || (id[3] == '0' && id.size() > 4))
      return kNoNumber;
    std::size_t n = 0;
    for (std::size_t i = 3; i < id.size(); ++i) {
      if (id[i] < '0' || id[i] > '9') return kNoNumber;
      n = n * 10 + static_cast<std::size_t>(id[i] - '0');
    }
    return n < most_ ? n : kNoNumber;
  }
  std::size_t most_;
  std::vector<FuncId> by_number_;
  std::unordered_map<std::string_view, FuncId> by_text_;
};

}  // namespace

bool sniff_zip(std::string_view head) { return head.starts_with("PK\x03\x04"); }

bool sniff(std::string_view head) {
  if (!sniff_zip(head)) return false;
  std::string l = lower(head);
  return l.find("callstacks.txt") != std::string::npos || l.find("symbols.txt") != std::string::npos ||
         l.find("stats.txt") != std::string::npos;
}

Expected<Profile> read(const InputFile& in, const formats::ReadOptions& options, Diagnostics& diag) {
  auto symbols = member(in, "Symbols.txt", options.memory_budget);
  if (!symbols) return symbols.error();
  Profile p;
  p.label_style = LabelStyle::kNameUnderObject;
  detail::StackBuilder builder(p, "time", "s", options.keep_stacks, true);
  p.events[0].seconds_per_unit = 1.0;
  SymbolIds by_id(symbols->size());
  {
    LineScanner scanner(*symbols);
    std::string_view line, id, module, proc;
    while (scanner.next(line)) {
      if (!symbol_line(line, id, module, proc)) continue;  // gprof2dot skips them too
      by_id.set(id, builder.function(proc, module, true));
    }
  }
  // Callstacks.txt streamed: often ten times the archive once inflated.
  std::vector<FuncId> stack;
  const std::string stacks_path = in.path() + " (Callstacks.txt)";
  auto sample = [&](std::string_view line, std::size_t number) -> Expected<bool> {
    if ((number & 4095) == 0 && options.memory_budget && p.approximate_bytes() > options.memory_budget)
      return bad_input(formats::over_budget_message(in.path(), options.memory_budget, p.functions.size(), 1));
    std::string_view t = trim(line);
    if (t.empty()) return true;
    std::size_t i = 0;
    while (i < t.size() && !is_blank(t[i])) ++i;
    double seconds = 0;
    auto [end, ec] = std::from_chars(t.data(), t.data() + i, seconds);
    if (ec != std::errc() || end != t.data() + i || !std::isfinite(seconds))
      return bad_input(
          at_line(stacks_path, number, 1,
                  fmt::format("expected a sample time in seconds, found {}", quote_input(t.substr(0, i)))));
    stack.clear();
    while (i < t.size()) {
      while (i < t.size() && is_blank(t[i])) ++i;
      std::size_t j = i;
      while (j < t.size() && !is_blank(t[j])) ++j;
      if (j == i) break;
      const FuncId f = by_id.find(t.substr(i, j - i));
      if (f == SymbolIds::kNone)
        return bad_input(
            at_line(stacks_path, number, i + 1,
                    fmt::format("expected a symbol id of Symbols.txt, found {}", quote_input(t.substr(i, j - i)))));
      stack.push_back(f);
      i = j;
    }
    builder.add_sample(stack, builder.cost(seconds));
    return true;
  };
  if (auto ok = each_line(in, "Callstacks.txt", options.memory_budget, sample); !ok) return ok.error();
  (void)diag;
  return p;
}

}  // namespace graphgen::sleepy
