#include "reader.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/two_parts.h"
#include "graphgen/analysis/stacks.h"
#include "graphgen/text.h"

namespace graphgen::collapse {

namespace {

// Splits `frames count` at the last run of blanks.
bool split_line(std::string_view line, std::string_view& frames, std::string_view& count) {
  std::string_view t = trim(line);
  std::size_t i = t.size();
  while (i > 0 && !is_blank(t[i - 1])) --i;
  if (i == 0) return false;
  count = t.substr(i);
  std::size_t j = i;
  while (j > 0 && is_blank(t[j - 1])) --j;
  frames = t.substr(0, j);
  return !frames.empty();
}

// `name (file:line)` -> (name, file); anything else is a plain frame.
bool split_located(std::string_view frame, std::string_view& name, std::string_view& file) {
  if (frame.size() < 5 || frame.back() != ')') return false;
  std::size_t open = frame.rfind(" (");
  if (open == std::string_view::npos) return false;
  std::string_view inner = frame.substr(open + 2, frame.size() - open - 3);
  std::size_t colon = inner.rfind(':');
  if (colon == std::string_view::npos || colon + 1 >= inner.size()) return false;
  for (char c : inner.substr(colon + 1))
    if (c < '0' || c > '9') return false;
  name = frame.substr(0, open);
  file = inner.substr(0, colon);
  return true;
}

}  // namespace

bool sniff(std::string_view head, bool* semicolons) {
  // The head may end inside a line: look at complete lines only.
  std::size_t last_nl = head.rfind('\n');
  if (last_nl == std::string_view::npos) return false;
  LineScanner scanner(head.substr(0, last_nl + 1));
  std::string_view line;
  int lines = 0, with_semicolon = 0;
  while (scanner.next(line)) {
    if (trim(line).empty()) continue;
    std::string_view frames, count;
    std::uint64_t n;
    if (!split_line(line, frames, count) || !parse_u64(count, n)) return false;
    ++lines;
    if (frames.find(';') != std::string_view::npos) ++with_semicolon;
  }
  if (semicolons) {
    *semicolons = with_semicolon * 2 >= lines;
    return lines > 0;
  }
  return lines > 0 && with_semicolon * 2 >= lines;
}

namespace {

// The lines of `part` (the whole file, or one of two parts of a large one).
Expected<Profile> read_part(const formats::FilePart& part, const formats::ReadOptions& options, Diagnostics& diag) {
  const InputFile& in = *part.input;
  const std::string_view bytes = part.bytes();
  Profile p;
  p.label_style = LabelStyle::kNameUnderObject;
  detail::StackBuilder builder(p, "samples", "", options.keep_stacks);
  std::vector<FuncId> stack;
  {
    LineScanner scanner(bytes, &in, part.begin);
    std::string_view line;
    while (scanner.next(line)) {
      if ((scanner.line_number() & 1023) == 0 && part.give_up(p))
        return bad_input(formats::over_budget_message(in.path(), options.memory_budget, p.functions.size(), 1));
      if (trim(line).empty()) continue;
      std::string_view frames, count;
      std::uint64_t n = 0;
      const bool split = split_line(line, frames, count);
      const bool counted = split && parse_u64(count, n);
      if (!counted && scanner.at_end() && !bytes.ends_with('\n')) {
        // A file cut short (the collapsing tool killed, a full disk, head -c):
        // the stacks before the cut are whole.
        diag.warn(cut_last_line(in.path(), part.file_line(scanner.line_number()), line));
        break;
      }
      if (!split)
        return bad_input(at_line(in.path(), part.file_line(scanner.line_number()), 1,
                                 fmt::format("expected 'frame;frame;... count', found {}", quote_input(line))));
      if (!counted)
        return bad_input(at_line(in.path(), part.file_line(scanner.line_number()),
                                 static_cast<std::size_t>(count.data() - line.data()) + 1,
                                 fmt::format("expected an integer sample count, found {}", quote_input(count))));
      // A stack ending in ';' (heaptrack_print -F writes `a;b; 12`): flamegraph.pl
      // splits it with Perl's split, which drops trailing empty fields.
      const std::size_t last = frames.find_last_not_of(';');
      if (last != std::string_view::npos) frames = frames.substr(0, last + 1);
      stack.clear();
      std::size_t start = 0;
      while (start <= frames.size()) {
        std::size_t semi = frames.find(';', start);
        std::string_view frame =
            frames.substr(start, semi == std::string_view::npos ? std::string_view::npos : semi - start);
        std::string_view name, file;
        if (split_located(frame, name, file)) {
          // The node is file:name; its label shows the file above the name.
          stack.push_back(builder.function(name, file, true));
        } else {
          stack.push_back(builder.function(frame, {}, false));
        }
        if (semi == std::string_view::npos) break;
        start = semi + 1;
      }
      std::reverse(stack.begin(), stack.end());  // leaf first
      builder.add_sample(stack, static_cast<Cost>(std::min<std::uint64_t>(n, INT64_MAX)));
    }
  }
  return p;
}

}  // namespace

Expected<Profile> read(const InputFile& in, const formats::ReadOptions& options, Diagnostics& diag,
                       std::size_t split_above) {
  // Every line is a stack of its own: a part may begin at any line.
  return formats::read_in_two_parts(
      in, options.memory_budget, split_above, formats::next_line,
      [&](const formats::FilePart& part, Diagnostics& d) { return read_part(part, options, d); }, diag);
}

Expected<Profile> read(const InputFile& in, const formats::ReadOptions& options, Diagnostics& diag) {
  return read(in, options, diag, formats::two_parts_above(options));
}

}  // namespace graphgen::collapse
