#include "common/read_options.h"

#include <fmt/format.h>

#include "graphgen/error.h"

namespace graphgen::formats {

std::string over_budget_message(std::string_view where, std::size_t budget, std::size_t functions, std::size_t events) {
  return fmt::format(
      "{}: the profile needs more than {} of memory ({} functions x {} events so far), far more "
      "than a file of this size should; if it is real, raise the limit with --max-memory",
      where, format_size(budget), functions, events);
}

}  // namespace graphgen::formats
