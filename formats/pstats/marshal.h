// Python marshal decoder (and, later, encoder), as used by pstats files.
//
// Grammar (docs/formats.md §1): one object per stream; each object is a type
// byte whose bit 7 is FLAG_REF, then a payload:
//   '0' NULL (dict terminator only)   'N' 'T' 'F' 'S' '.'  singletons
//   'i' i32   'I' i64   'l' i32 n + |n| 15-bit u16 digits   'g' f64   'f' u8 len + text
//   'x' 2 text floats   'y' 2 f64      's' 't' 'u' 'a' 'A' i32 len + bytes
//   'z' 'Z' u8 len + bytes            '(' '[' '<' '>' i32 n + n objects   ')' u8 n + n objects
//   '{' (key value)* '0'              ':' 3 objects (slice)
//   'c' code object (layouts of Python 2.7, 3.6-3.7, 3.8-3.10, 3.11-3.13)
//   'r' i32 index into flagged objects   'R' i32 index into Python 2 interned strings
// Every length is checked against the bytes left before anything is
// allocated; nesting is capped; no object may refer to one still being read.
// Work is linear in the input: a file's code objects share one layout (the
// first one tried that reads decides it, nested code objects never retry),
// and hashability of dict keys is memoised per node (references make the
// object graph a DAG whose paths can be exponentially many).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graphgen/error.h"

namespace graphgen::marshal {

enum class Type : std::uint8_t {
  kNone,
  kBool,
  kStopIteration,
  kEllipsis,
  kInt,
  kFloat,
  kComplex,
  kStr,    // text, stored as UTF-8 (Latin-1 'a'/'z' transcoded; surrogates kept)
  kBytes,  // 's': Python 3 bytes, Python 2 str (raw bytes)
  kTuple,
  kList,
  kDict,  // children are key, value, key, value, ...
  kSet,
  kFrozenSet,
  kSlice,
  kCode,  // a code object: text `<code object NAME, file "FILE", line N>`, then its marshal bytes
};

/// Human name of a type, for error messages ("tuple", "int", ...).
std::string_view type_name(Type t);
/// The name with its article, for "found an int", "found a tuple".
std::string a_type(Type t);

struct Node {
  Type type = Type::kNone;
  char code = 0;             // the marshal type code it was read from, without FLAG_REF
  std::uint32_t offset = 0;  // of the type byte in the input
  std::uint32_t begin = 0;   // text: arena offset; containers: children offset
  std::uint32_t size = 0;    // text: bytes; containers: children count
  union {
    std::int64_t i;  // kInt, kBool; kCode: length of its marshal bytes (after the text)
    double f;        // kFloat, kComplex (real part)
  };
  Node() : i(0) {}
};

/// A decoded stream: a DAG of nodes (references share nodes).
class Document {
 public:
  const Node& root() const { return nodes_[root_]; }
  const Node& node(std::uint32_t index) const { return nodes_[index]; }
  /// Number of nodes; node indices are below it (lets readers memoise per node).
  std::size_t size() const { return nodes_.size(); }
  /// Index of a node obtained from node() or root().
  std::uint32_t index_of(const Node& n) const { return static_cast<std::uint32_t>(&n - nodes_.data()); }
  /// Child node indices of a container.
  std::span<const std::uint32_t> children(const Node& n) const { return {children_.data() + n.begin, n.size}; }
  /// Text of a kStr / kBytes / kCode node.
  std::string_view text(const Node& n) const { return {arena_.data() + n.begin, n.size}; }
  /// A kCode node's code object as self-contained marshal bytes (no
  /// references), loadable by the Python that wrote the file.
  std::string_view code_bytes(const Node& n) const {
    return {arena_.data() + n.begin + n.size, static_cast<std::size_t>(n.i)};
  }
  /// Bytes after the object (ignored by Python too).
  std::size_t trailing_bytes() const { return trailing_; }

 private:
  friend class Decoder;
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> children_;
  std::string arena_;
  std::uint32_t root_ = 0;
  std::size_t trailing_ = 0;
};

/// Decodes one marshal object. Errors read `PATH:+0xOFF: what was wrong`.
Expected<Document> decode(std::string_view bytes, std::string_view path);

/// The same, reusing `reuse`'s buffers (decoding many files one after
/// another without allocating for each).
Expected<Document> decode(std::string_view bytes, std::string_view path, Document&& reuse);

}  // namespace graphgen::marshal
