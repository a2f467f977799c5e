// The node tree of V8's CPU profiles, which a .cpuprofile's "nodes"
// (cpuprofile.cc) and a trace's ProfileChunk events (v8_samples.cc) both
// hold: each node a call frame (functionName, url, lineNumber) under its
// parent, named by children ids or a parent id.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "graphgen/error.h"
#include "graphgen/profile.h"

namespace graphgen::chrome {

constexpr std::uint32_t kNoNode = UINT32_MAX;

struct V8Node {
  std::int64_t id = 0;
  std::string name, url;
  std::int64_t line = -1;  // 0-based, -1: none
  std::vector<std::int64_t> children;
  std::int64_t parent_id = -1;
  std::size_t offset = 0;  // where the input holds it, for messages
  std::uint32_t parent = kNoNode;
};

/// Each node's parent from its children ids or its parent id, checked,
/// and its depth (the root's 1), without recursion: a parent link that
/// comes back is a loop. `where` names a node in the messages.
Expected<bool> link_nodes(std::vector<V8Node>& nodes, const std::unordered_map<std::int64_t, std::uint32_t>& index,
                          std::vector<std::int64_t>& depth, const std::function<std::string(const V8Node&)>& where);

/// The events of a V8 CPU profile: time in microseconds, and samples.
std::vector<Event> v8_events(Profile& p);

/// A function per name (an empty one `(anonymous)`), url and line, as
/// Profile::line_in_identity keeps them.
class V8Functions {
 public:
  FuncId of(Profile& p, const V8Node& n);
  std::size_t size() const { return functions_.size(); }

 private:
  std::unordered_map<std::string, FuncId> functions_;
  std::string key_;
};

}  // namespace graphgen::chrome
