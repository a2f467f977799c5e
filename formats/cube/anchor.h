// CUBE4's anchor.xml: what the reader needs of it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graphgen/error.h"

namespace graphgen::cube::detail {

struct Metric {
  std::int64_t id = -1;
  std::string uniq_name, dtype, uom, type;  // type: INCLUSIVE, EXCLUSIVE, ...
};

struct Region {
  std::int64_t id = -1;
  std::string name, mod;
  std::int64_t begin = -1;
};

struct Cnode {
  std::int64_t id = -1;
  std::int64_t region = -1;             // calleeId
  std::int32_t parent = -1;             // index in Anchor::cnodes, -1 for a root
  std::vector<std::uint32_t> children;  // indexes, in document order
};

struct Location {
  std::int64_t id = -1;
  std::int64_t thread = 0;    // the location's <rank>
  std::int64_t process = -1;  // its location group's <rank>
};

struct Anchor {
  std::vector<Metric> metrics;
  std::vector<Region> regions;
  std::vector<Cnode> cnodes;  // in document order: preorder
  std::vector<Location> locations;
};

/// Parses anchor.xml; errors name `path` (the archive) and the member.
Expected<Anchor> parse_anchor(std::string_view xml, const std::string& where);

}  // namespace graphgen::cube::detail
