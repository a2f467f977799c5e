#include "reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "graphgen/analysis/stacks.h"
#include "graphgen/text.h"

namespace graphgen::xperf {

namespace {

// Splits one CSV line into `fields` (reused), skipping blanks after each
// comma; false (with `at` the column) on a quote left open.
bool split(std::string_view line, std::vector<std::string>& fields, std::size_t& count, std::size_t& at) {
  count = 0;
  std::size_t i = 0;
  for (;;) {
    while (i < line.size() && line[i] == ' ') ++i;
    if (count == fields.size()) fields.emplace_back();
    std::string& f = fields[count++];
    f.clear();
    if (i < line.size() && line[i] == '"') {
      std::size_t open = i++;
      for (;;) {
        if (i >= line.size()) {
          at = open;
          return false;
        }
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            f += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        f += line[i++];
      }
      // Text after the closing quote, up to the comma, belongs to the field.
      std::size_t comma = line.find(',', i);
      f.append(line.substr(i, comma == std::string_view::npos ? std::string_view::npos : comma - i));
      if (comma == std::string_view::npos) return true;
      i = comma + 1;
    } else {
      std::size_t comma = line.find(',', i);
      f.assign(line.substr(i, comma == std::string_view::npos ? std::string_view::npos : comma - i));
      if (comma == std::string_view::npos) return true;
      i = comma + 1;
    }
  }
}

// Python's int() or float() of a field, as gprof2dot converts them.
bool number(std::string_view s, double& out) {
  s = trim(s);
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && ec == std::errc() && end == s.data() + s.size();
}

constexpr std::string_view kRequired[] = {"Process Name", "Module", "Function", "Weight", "Count", "Stack"};

}  // namespace

bool sniff(std::string_view head) {
  std::size_t nl = head.find('\n');
  if (nl == std::string_view::npos) return false;
  std::vector<std::string> fields;
  std::size_t count = 0, at = 0;
  if (!split(trim(head.substr(0, nl)), fields, count, at)) return false;
  std::size_t found = 0;
  for (std::string_view want : kRequired)
    for (std::size_t k = 0; k < count; ++k)
      if (fields[k] == want) {
        ++found;
        break;
      }
  return found == std::size(kRequired);
}

Expected<Profile> read(const InputFile& in, const formats::ReadOptions& options, Diagnostics& diag) {
  Profile p;
  p.label_style = LabelStyle::kNameUnderObject;
  detail::StackBuilder builder(p, "samples", "", options.keep_stacks, true);
  LineScanner scanner(in.bytes(), &in);
  std::string_view line;
  std::vector<std::string> fields;
  std::size_t count = 0, at = 0;
  auto open_quote = [&](std::string_view l) {
    return bad_input(at_line(
        in.path(), scanner.line_number(), at + 1,
        fmt::format("expected a closing '\"' before the end of the line, found {}", quote_input(l.substr(at)))));
  };
  // The header: where each column is.
  bool header = false;
  while (scanner.next(line)) {
    if (trim(line).empty()) continue;
    if (!split(line, fields, count, at)) return open_quote(line);
    header = true;
    break;
  }
  if (!header) return p;  // an empty export: no samples
  std::size_t column[std::size(kRequired)];
  for (std::size_t r = 0; r < std::size(kRequired); ++r) {
    column[r] = SIZE_MAX;
    for (std::size_t k = 0; k < count; ++k)
      if (fields[k] == kRequired[r]) {
        if (column[r] != SIZE_MAX)
          return bad_input(at_line(in.path(), scanner.line_number(), 1,
                                   fmt::format("expected one column named '{}', found two", kRequired[r])));
        column[r] = k;
      }
    if (column[r] == SIZE_MAX)
      return bad_input(at_line(in.path(), scanner.line_number(), 1,
                               fmt::format("expected a column named '{}' in the CSV header (an xperf stack "
                                           "export), found {}",
                                           kRequired[r], quote_input(line))));
  }
  const std::size_t header_fields = count;
  const std::size_t kProcess = column[0], kModule = column[1], kFunction = column[2], kWeight = column[3],
                    kCount = column[4], kStack = column[5];
  std::vector<FuncId> stack;
  std::string symbol;
  while (scanner.next(line)) {
    if ((scanner.line_number() & 4095) == 0 && options.memory_budget && p.approximate_bytes() > options.memory_budget)
      return bad_input(formats::over_budget_message(in.path(), options.memory_budget, p.functions.size(), 1));
    if (trim(line).empty()) continue;
    if (!split(line, fields, count, at)) return open_quote(line);
    if (count < header_fields)
      return bad_input(at_line(in.path(), scanner.line_number(), line.size() + 1,
                               fmt::format("expected {} fields as in the header, found {}", header_fields, count)));
    const std::string& process = fields[kProcess];
    if (process == "Idle") continue;
    double weight = 0, calls = 0;
    if (!number(fields[kWeight], weight) || !number(fields[kCount], calls) || !std::isfinite(weight) ||
        !std::isfinite(calls))
      return bad_input(at_line(in.path(), scanner.line_number(), 1,
                               fmt::format("expected numbers in the Weight and Count columns, found {} and {}",
                                           quote_input(fields[kWeight]), quote_input(fields[kCount]))));
    const std::string& module = fields[kModule];
    const std::string& function = fields[kFunction];
    FuncId self = builder.function(function, module, true, process);
    stack.clear();
    std::string_view frames = fields[kStack];
    if (frames != "?") {
      if (!(frames == "[Root]" || frames.starts_with("[Root]/")))
        return bad_input(
            at_line(in.path(), scanner.line_number(), 1,
                    fmt::format("expected a Stack starting at '[Root]/' (or '?'), found {}", quote_input(frames))));
      symbol = module + '!' + function;
      std::size_t start = frames.size() > 6 ? 7 : frames.size();
      bool ends_in_self = false;
      while (start < frames.size()) {
        std::size_t slash = frames.find('/', start);
        std::string_view frame =
            frames.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
        std::size_t bang = frame.find('!');
        FuncId f = bang == std::string_view::npos
                       ? builder.function(frame, {}, false, process)
                       : builder.function(frame.substr(bang + 1), frame.substr(0, bang), true, process);
        stack.push_back(f);
        ends_in_self = frame == symbol;
        if (slash == std::string_view::npos) break;
        start = slash + 1;
      }
      if (!ends_in_self) stack.push_back(self);
      std::reverse(stack.begin(), stack.end());  // innermost first
    } else {
      stack.push_back(self);
    }
    // The sample's weight goes to its function, its count to each call.
    builder.add_sample(stack, builder.cost(weight * calls), builder.cost(calls));
  }
  (void)diag;
  return p;
}

}  // namespace graphgen::xperf
