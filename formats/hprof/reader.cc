#include "reader.h"

#include <fmt/format.h>

#include <unordered_map>
#include <vector>

#include "graphgen/analysis/stacks.h"
#include "graphgen/text.h"

namespace graphgen::hprof {

namespace {

// `\t method(file:line)`: the method is what comes before the last '('
// that a 'file:line)' follows.
bool frame_method(std::string_view line, std::string_view& method) {
  for (std::size_t open = line.rfind('('); open != std::string_view::npos && open > 0;
       open = line.rfind('(', open - 1)) {
    std::string_view rest = line.substr(open + 1);
    std::size_t colon = rest.find(':');
    if (colon != std::string_view::npos && rest.find(')', colon) != std::string_view::npos) {
      method = line.substr(1, open - 1);
      return true;
    }
    if (open == 1) break;
  }
  return false;
}

// 'TRACE ' digits ':' [anything]
bool trace_id(std::string_view line, std::uint64_t& id) {
  std::string_view rest = line.substr(6);
  std::size_t colon = rest.find(':');
  return colon != std::string_view::npos && parse_u64(rest.substr(0, colon), id);
}

struct Trace {
  std::uint64_t id;
  std::vector<std::string_view> methods;  // innermost first
};

}  // namespace

bool sniff(std::string_view head) { return head.starts_with("JAVA PROFILE "); }

Expected<Profile> read(const InputFile& in, const formats::ReadOptions& options, Diagnostics& diag) {
  LineScanner scanner(in.bytes(), &in);
  std::string_view line;
  bool ruler = false;
  while (scanner.next(line))
    if (line.starts_with("------")) {
      ruler = true;
      break;
    }
  if (!ruler)
    return bad_input(at_line(in.path(), std::max<std::size_t>(scanner.line_number(), 1), 1,
                             "expected the '--------' line that ends HPROF's header, found the end of the file"));

  std::vector<Trace> traces;
  std::unordered_map<std::uint64_t, std::uint64_t> samples;  // trace id -> count
  bool in_trace = false, cpu = false;
  std::size_t bad_rows = 0, bad_row_line = 0;
  std::size_t bytes = 0;
  while (scanner.next(line)) {
    if (in_trace && !line.empty() && line[0] == '\t') {
      std::string_view method;
      if (frame_method(line, method)) {
        traces.back().methods.push_back(method);
        bytes += sizeof(method);
      } else {
        in_trace = false;  // `<empty>` or an unknown frame ends the trace
      }
      continue;
    }
    in_trace = false;
    if (line.starts_with("TRACE ")) {
      std::uint64_t id = 0;
      if (!trace_id(line, id))
        return bad_input(at_line(in.path(), scanner.line_number(), 1,
                                 fmt::format("expected 'TRACE <number>:', found {}", quote_input(line))));
      traces.push_back({id, {}});
      bytes += sizeof(Trace);
      in_trace = true;
    } else if (line.starts_with("CPU SAMPLES BEGIN") || line.starts_with("CPU TIME (ms) BEGIN")) {
      cpu = true;
      scanner.next(line);  // the column titles
      while (scanner.next(line) && !line.starts_with("CPU")) {
        // rank self% accum% count trace method
        std::uint64_t fields[2];
        std::size_t i = 0, n = 0;
        bool ok = true;
        for (std::size_t k = 0; k < 6 && ok; ++k) {
          while (i < line.size() && is_blank(line[i])) ++i;
          std::size_t j = i;
          while (j < line.size() && !is_blank(line[j])) ++j;
          if (i == j) ok = false;
          if (ok && (k == 3 || k == 4)) ok = parse_u64(line.substr(i, j - i), fields[n++]);
          i = j;
        }
        if (!ok) {
          if (bad_rows++ == 0) bad_row_line = scanner.line_number();
          continue;
        }
        samples[fields[1]] = fields[0];
      }
      break;  // gprof2dot reads the first CPU table only
    }
    if (options.memory_budget && bytes > options.memory_budget)
      return bad_input(formats::over_budget_message(in.path(), options.memory_budget, traces.size(), 1));
  }
  if (!cpu)
    return bad_input(at_line(in.path(), scanner.line_number(), 1,
                             "expected a 'CPU SAMPLES BEGIN' (or 'CPU TIME (ms) BEGIN') table, found none: this "
                             "HPROF file holds no CPU profile (java -agentlib:hprof=cpu=samples writes one)"));
  if (bad_rows)
    diag.warn(at_line(in.path(), bad_row_line, 1,
                      fmt::format("skipped {} row(s) of the CPU table that are not 'rank self accum count trace "
                                  "method'",
                                  bad_rows)));

  Profile p;
  p.label_style = LabelStyle::kName;
  detail::StackBuilder builder(p, "samples", "", options.keep_stacks);
  std::vector<FuncId> stack;
  for (const Trace& t : traces) {
    auto it = samples.find(t.id);
    if (it == samples.end() || t.methods.empty()) continue;
    stack.clear();
    for (std::string_view m : t.methods) stack.push_back(builder.function(m, {}, false));
    builder.add_sample(stack, static_cast<Cost>(std::min<std::uint64_t>(it->second, INT64_MAX)));
  }
  for (Call& c : p.calls) c.count = 0;  // as gprof2dot: hprof counts no calls
  return p;
}

}  // namespace graphgen::hprof
