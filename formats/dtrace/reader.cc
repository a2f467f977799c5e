#include "reader.h"

#include <fmt/format.h>

#include <vector>

#include "common/two_parts.h"
#include "graphgen/analysis/stacks.h"
#include "graphgen/text.h"

namespace graphgen::dtrace {

namespace {

bool is_hex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  return true;
}

enum class Kind { kBlank, kHeader, kFrame, kAddress, kCount, kOther };

Kind classify(std::string_view line) {
  std::string_view t = trim(line);
  if (t.empty()) return Kind::kBlank;
  if (t.starts_with("CPU")) return Kind::kHeader;
  std::uint64_t n;
  if (parse_u64(t, n)) return Kind::kCount;
  if (!is_blank(line[0])) return Kind::kOther;
  if (t.find('`') != std::string_view::npos) return Kind::kFrame;
  if (t.starts_with("0x") && is_hex(t.substr(2))) return Kind::kAddress;
  return Kind::kOther;
}

// module`symbol[+0xOFFSET] -> (module, symbol), the last '`' splitting.
void split_frame(std::string_view line, std::string_view& module, std::string_view& symbol) {
  std::size_t i = 0;
  while (i < line.size() && (is_blank(line[i]) || line[i] == '\r' || line[i] == '\f' || line[i] == '\v')) ++i;
  std::size_t tick = line.rfind('`');
  module = line.substr(i, tick - i);
  symbol = line.substr(tick + 1);
  std::size_t plus = symbol.rfind("+0x");
  if (plus != std::string_view::npos && is_hex(symbol.substr(plus + 3))) symbol = symbol.substr(0, plus);
}

}  // namespace

bool sniff(std::string_view head) {
  std::size_t last_nl = head.rfind('\n');
  if (last_nl == std::string_view::npos) return false;
  LineScanner scanner(head.substr(0, last_nl + 1));
  std::string_view line;
  int frames = 0, counts = 0;
  bool skip_next = false;
  while (scanner.next(line)) {
    if (skip_next) {
      skip_next = false;
      continue;
    }
    switch (classify(line)) {
      case Kind::kBlank:
        break;
      case Kind::kHeader:
        skip_next = true;
        break;
      case Kind::kFrame:
        ++frames;
        break;
      case Kind::kAddress:
        break;
      case Kind::kCount:
        if (frames == 0) return false;  // a count before any frame
        ++counts;
        break;
      case Kind::kOther:
        return false;
    }
  }
  return frames > 0 && (counts > 0 || frames >= 3);
}

namespace {

// Where a part may begin: after a count line, where the stack above it
// was added and emptied, unless the line before it is a header (whose
// probe line it is: a stack may go on past it).
std::size_t after_count(std::string_view bytes, std::size_t from) {
  std::size_t begin = formats::next_line(bytes, from);
  if (begin == std::string_view::npos) return begin;
  std::string_view before = bytes.substr(0, begin - 1);
  before = before.substr(before.rfind('\n') + 1);  // (npos + 1: the file's first line)
  while (begin < bytes.size()) {
    const std::size_t next = formats::next_line(bytes, begin);
    if (next == std::string_view::npos) return next;
    const std::string_view line = bytes.substr(begin, next - 1 - begin);
    if (classify(line) == Kind::kCount && !trim(before).starts_with("CPU")) return next;
    before = line;
    begin = next;
  }
  return std::string_view::npos;
}

Expected<Profile> read_part(const formats::FilePart& part, const formats::ReadOptions& options, Diagnostics& diag) {
  const InputFile& in = *part.input;
  Profile p;
  p.label_style = LabelStyle::kName;
  detail::StackBuilder builder(p, "samples", "", options.keep_stacks);
  std::vector<FuncId> stack;
  std::size_t stack_line = 0;
  LineScanner scanner(part.bytes(), &in, part.begin);
  std::string_view line;
  while (scanner.next(line)) {
    if ((scanner.line_number() & 4095) == 0 && part.give_up(p))
      return bad_input(formats::over_budget_message(in.path(), options.memory_budget, p.functions.size(), 1));
    switch (classify(line)) {
      case Kind::kBlank:
        break;
      case Kind::kHeader:
        scanner.next(line);  // the probe's line under the header
        break;
      case Kind::kFrame: {
        std::string_view module, symbol;
        split_frame(line, module, symbol);
        if (stack.empty()) stack_line = scanner.line_number();
        stack.push_back(builder.function(symbol, module, true));
        break;
      }
      case Kind::kAddress:
        if (stack.empty()) stack_line = scanner.line_number();
        stack.push_back(builder.function(trim(line), {}, false));
        break;
      case Kind::kCount: {
        std::uint64_t n = 0;
        parse_u64(trim(line), n);
        // A count with no frames above it (an empty stack) adds nothing.
        builder.add_sample(stack, static_cast<Cost>(std::min<std::uint64_t>(n, INT64_MAX)));
        stack.clear();
        break;
      }
      case Kind::kOther:
        return bad_input(at_line(
            in.path(), part.file_line(scanner.line_number()), 1,
            fmt::format("expected an indented frame 'module`symbol' or a sample count, found {}", quote_input(line))));
    }
  }
  if (!stack.empty())
    diag.warn(at_line(in.path(), part.file_line(stack_line), 1,
                      fmt::format("expected a sample count after the last stack's {} frames, found the end of the "
                                  "file (a cut file?); that stack was left out",
                                  stack.size())));
  return p;
}

}  // namespace

Expected<Profile> read(const InputFile& in, const formats::ReadOptions& options, Diagnostics& diag,
                       std::size_t split_above) {
  return formats::read_in_two_parts(
      in, options.memory_budget, split_above, after_count,
      [&](const formats::FilePart& part, Diagnostics& d) { return read_part(part, options, d); }, diag);
}

Expected<Profile> read(const InputFile& in, const formats::ReadOptions& options, Diagnostics& diag) {
  return read(in, options, diag, formats::two_parts_above(options));
}

}  // namespace graphgen::dtrace
