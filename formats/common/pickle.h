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
#include <optional>
#include <span>
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

// A decoded object in 16 bytes: a snapshot of 10 MB holds three million
// (ints and tuples), so none owns memory of its own; text and items live in
// the Document, back to back.
struct Node {
  struct Span {
    std::uint32_t begin, count;
  };
  struct Object {
    std::uint32_t state, cls;  // the BUILD state (UINT32_MAX: none), the class node
  };
  Type type = Type::kNone;
  std::uint32_t offset = 0;  // of the opcode that made it
  union {
    std::int64_t i = 0;  // kInt, kBool
    double f;            // kFloat
    Span span;           // kStr, kBytes (raw), kClass ("module.name"): Document::text_bytes; kTuple:
                         // Document::tuple_items; kList, kDict: begin is its Document::growing slot
    Object object;       // kObject
  };
};

struct Document {
  std::vector<Node> nodes;
  std::string text_bytes;                           // every str, bytes and class name
  std::vector<std::uint32_t> tuple_items;           // every tuple's items
  std::vector<std::vector<std::uint32_t>> growing;  // lists' items; dicts' key, value, key, value, ...
  std::uint32_t root = 0;
  const Node& node(std::uint32_t i) const { return nodes[i]; }
  /// The text of a str, bytes or class; empty for any other node.
  std::string_view text(const Node& n) const {
    if (n.type != Type::kStr && n.type != Type::kBytes && n.type != Type::kClass) return {};
    return std::string_view(text_bytes).substr(n.span.begin, n.span.count);
  }
  /// The items of a tuple or list, a dict's keys and values; empty for any other node.
  std::span<const std::uint32_t> items(const Node& n) const {
    if (n.type == Type::kTuple) return {tuple_items.data() + n.span.begin, n.span.count};
    if (n.type == Type::kList || n.type == Type::kDict) return growing[n.span.begin];
    return {};
  }
};

/// The classes a pickle may name, and what the refusal of another says
/// ("only line_profiler's LineStats may appear in a .lprof file").
struct Allowed {
  std::vector<std::pair<std::string_view, std::string_view>> classes;  // (module, name)
  std::string_view only;
};

/// The value of a LONG1/LONG4 integer: its bytes little-endian, two's
/// complement; nothing for more than 8 bytes.
std::optional<std::int64_t> long_value(std::string_view bytes);

/// Decodes one pickle. Errors read `PATH:+0xOFF: what was wrong`.
Expected<Document> decode(std::string_view bytes, std::string_view path, const Allowed& allowed);

}  // namespace graphgen::pickle
