// A safe decoder for the pickle subset of line_profiler's .lprof files and
// tracemalloc's snapshots (docs/formats.md §3.5): protocols 2-5, a memo
// keyed by index, MARK-based containers, ints (BININT*, LONG1/4, text
// INT/LONG), big-endian BINFLOAT, Python 3 str and Python 2 str, and
// objects built with NEWOBJ + BUILD. GLOBAL/STACK_GLOBAL may name only the
// classes its caller allows (each reader its own); every other opcode
// (REDUCE, INST, OBJ, EXT*, PERSID, ...) is rejected with its name and
// offset. Nothing is ever executed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphgen/error.h"

namespace graphgen::pickle {

enum class Type : std::uint8_t { kNone, kBool, kInt, kFloat, kStr, kBytes, kTuple, kList, kDict, kClass, kObject };

std::string_view type_name(Type t);
/// The name with its article, for "found an int", "found a tuple".
std::string a_type(Type t);

struct Node {
  Type type = Type::kNone;
  std::uint32_t offset = 0;          // of the opcode that made it
  std::int64_t i = 0;                // kInt, kBool
  double f = 0;                      // kFloat
  std::string text;                  // kStr, kBytes (raw), kClass ("module.name")
  std::vector<std::uint32_t> items;  // kTuple, kList; kDict: key, value, key, value, ...
  std::uint32_t state = UINT32_MAX;  // kObject: the BUILD state, if any
  std::uint32_t cls = UINT32_MAX;    // kObject: its class node
};

struct Document {
  std::vector<Node> nodes;
  std::uint32_t root = 0;
  const Node& node(std::uint32_t i) const { return nodes[i]; }
};

/// The classes a pickle may name, and what the refusal of another says
/// ("only line_profiler's LineStats may appear in a .lprof file").
struct Allowed {
  std::vector<std::pair<std::string_view, std::string_view>> classes;  // (module, name)
  std::string_view only;
};

/// Decodes one pickle. Errors read `PATH:+0xOFF: what was wrong`.
Expected<Document> decode(std::string_view bytes, std::string_view path, const Allowed& allowed);

}  // namespace graphgen::pickle
