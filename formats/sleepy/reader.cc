#include "reader.h"

#include <fmt/format.h>
#include <zip.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <memory>
#include <unordered_map>
#include <vector>

#include "graphgen/analysis/stacks.h"
#include "graphgen/text.h"

namespace graphgen::sleepy {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct Archive {
  zip_t* zip = nullptr;
  ~Archive() {
    if (zip) zip_discard(zip);
  }
};

// A member, found without regard to case, opened for reading.
Expected<zip_file_t*> open_member(zip_t* zip, std::string_view name, const std::string& path) {
  zip_int64_t n = zip_get_num_entries(zip, 0);
  zip_int64_t index = -1;
  std::string want = lower(name);
  for (zip_int64_t i = 0; i < n && index < 0; ++i) {
    const char* member_name = zip_get_name(zip, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
    if (member_name && lower(member_name) == want) index = i;
  }
  if (index < 0)
    return bad_input(fmt::format("{}: expected the member {} in this Very Sleepy archive, found none", path, name));
  zip_file_t* file = zip_fopen_index(zip, static_cast<zip_uint64_t>(index), 0);
  if (!file) return bad_input(fmt::format("{}: cannot read its member {}: {}", path, name, zip_strerror(zip)));
  return file;
}

// The lines of a member, inflated 64 KiB at a time: fn(line, number) for
// each (without its '\n' and a trailing '\r'), so a member of any size
// needs memory for its longest line only (at most `limit` bytes: a zip can
// claim any size). fn returns false to stop; its error is then the result.
template <class Fn>
Expected<bool> each_line(zip_t* zip, std::string_view name, const std::string& path, std::size_t limit, Fn&& fn) {
  auto opened = open_member(zip, name, path);
  if (!opened) return opened.error();
  std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> file(*opened, &zip_fclose);
  std::string pending;  // the start of a line the last chunk cut
  std::vector<char> buffer(std::size_t{1} << 16);
  std::size_t number = 0;
  auto one = [&](std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return fn(line, ++number);
  };
  for (;;) {
    zip_int64_t got = zip_fread(file.get(), buffer.data(), buffer.size());
    if (got < 0)
      return bad_input(fmt::format("{}: cannot read its member {}: {}", path, name, zip_file_strerror(file.get())));
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
Expected<std::string> member(zip_t* zip, std::string_view name, const std::string& path, std::size_t limit) {
  std::string out;
  auto ok = each_line(zip, name, path, limit, [&](std::string_view line, std::size_t) -> Expected<bool> {
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

}  // namespace

bool sniff_zip(std::string_view head) { return head.starts_with("PK\x03\x04"); }

bool sniff(std::string_view head) {
  if (!sniff_zip(head)) return false;
  std::string l = lower(head);
  return l.find("callstacks.txt") != std::string::npos || l.find("symbols.txt") != std::string::npos ||
         l.find("stats.txt") != std::string::npos;
}

Expected<Profile> read(const InputFile& in, const formats::ReadOptions& options, Diagnostics& diag) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(in.bytes().data(), in.bytes().size(), 0, &error);
  Archive archive;
  if (source) archive.zip = zip_open_from_source(source, ZIP_RDONLY, &error);
  if (!archive.zip) {
    std::string why = zip_error_strerror(&error);
    if (source) zip_source_free(source);
    zip_error_fini(&error);
    return bad_input(
        fmt::format("{}: expected a Very Sleepy profile (a zip archive), found bytes libzip cannot "
                    "open: {}",
                    in.path(), why));
  }
  zip_error_fini(&error);
  auto symbols = member(archive.zip, "Symbols.txt", in.path(), options.memory_budget);
  if (!symbols) return symbols.error();
  Profile p;
  p.label_style = LabelStyle::kNameUnderObject;
  detail::StackBuilder builder(p, "time", "s", options.keep_stacks, true);
  p.events[0].seconds_per_unit = 1.0;
  std::unordered_map<std::string_view, FuncId> by_id;
  {
    LineScanner scanner(*symbols);
    std::string_view line, id, module, proc;
    while (scanner.next(line)) {
      if (!symbol_line(line, id, module, proc)) continue;  // gprof2dot skips them too
      by_id[id] = builder.function(proc, module, true);
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
      auto it = by_id.find(t.substr(i, j - i));
      if (it == by_id.end())
        return bad_input(
            at_line(stacks_path, number, i + 1,
                    fmt::format("expected a symbol id of Symbols.txt, found {}", quote_input(t.substr(i, j - i)))));
      stack.push_back(it->second);
      i = j;
    }
    builder.add_sample(stack, builder.cost(seconds));
    return true;
  };
  if (auto ok = each_line(archive.zip, "Callstacks.txt", in.path(), options.memory_budget, sample); !ok)
    return ok.error();
  (void)diag;
  return p;
}

}  // namespace graphgen::sleepy
