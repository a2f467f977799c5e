#include "chrome/v8_nodes.h"

#include <fmt/format.h>

namespace graphgen::chrome {

Expected<bool> link_nodes(std::vector<V8Node>& nodes, const std::unordered_map<std::int64_t, std::uint32_t>& index,
                          std::vector<std::int64_t>& depth, const std::function<std::string(const V8Node&)>& where) {
  for (std::uint32_t i = 0; i < nodes.size(); ++i) {
    V8Node& n = nodes[i];
    for (std::int64_t c : n.children) {
      auto it = index.find(c);
      if (it == index.end())
        return bad_input(fmt::format("{}: node {} has child {}, which is no node", where(n), n.id, c));
      nodes[it->second].parent = i;
    }
    if (n.parent_id >= 0 && n.parent == kNoNode) {
      auto it = index.find(n.parent_id);
      if (it == index.end())
        return bad_input(fmt::format("{}: node {} has parent {}, which is no node", where(n), n.id, n.parent_id));
      n.parent = it->second;
    }
  }
  depth.assign(nodes.size(), -1);
  std::vector<std::uint32_t> path;
  for (std::uint32_t i = 0; i < nodes.size(); ++i) {
    path.clear();
    std::uint32_t n = i;
    while (n != kNoNode && depth[n] == -1) {
      depth[n] = -2;  // on the path
      path.push_back(n);
      n = nodes[n].parent;
    }
    if (n != kNoNode && depth[n] == -2)
      return bad_input(fmt::format("{}: node {} is its own ancestor", where(nodes[n]), nodes[n].id));
    std::int64_t d = n == kNoNode ? 0 : depth[n];
    for (std::size_t k = path.size(); k-- > 0;) depth[path[k]] = ++d;
  }
  return true;
}

std::vector<Event> v8_events(Profile& p) {
  Event time;
  time.name = p.strings.intern("time");
  time.unit = p.strings.intern("microseconds");
  time.seconds_per_unit = 1e-6;
  Event samples;
  samples.name = p.strings.intern("samples");
  return {time, samples};
}

FuncId V8Functions::of(Profile& p, const V8Node& n) {
  const std::string_view name = n.name.empty() ? std::string_view("(anonymous)") : std::string_view(n.name);
  key_.assign(name).append(1, '\0').append(n.url).append(1, '\0').append(std::to_string(n.line));
  auto [it, fresh] = functions_.try_emplace(key_, 0);
  if (fresh) {
    Function f;
    f.name = p.strings.intern(name);
    if (!n.url.empty()) f.file = p.strings.intern(n.url);
    if (n.line >= 0) f.line = n.line + 1;
    it->second = p.add_function(f);
  }
  return it->second;
}

}  // namespace graphgen::chrome
