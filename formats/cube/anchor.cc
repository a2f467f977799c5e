#include "anchor.h"

#include <fmt/format.h>

#include <charconv>
#include <cstring>
#include <optional>

#include "common/xml.h"
#include "graphgen/text.h"

namespace graphgen::cube::detail {

namespace {

class Parser {
 public:
  explicit Parser(const std::string& where) : where_(where), xml_(this) {}
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  Expected<Anchor> parse(std::string_view xml) {
    if (!xml_.unavailable().empty()) return bad_input(fmt::format("{}: {}", where_, xml_.unavailable()));
    if (!xml_.parse(xml)) {
      if (error_) return *error_;
      return bad_input(position(fmt::format("expected well-formed XML, found {}", xml_.error_text())));
    }
    if (!saw_cube_) return bad_input(at_end(where_, xml, "expected a <cube> document, found none"));
    return std::move(anchor_);
  }

 private:
  friend struct formats::XmlCallbacks<Parser>;

  void text(const XML_Char* s, int len) {
    if (capture_ && text_.size() < (std::size_t{1} << 20)) text_.append(s, static_cast<std::size_t>(len));
  }

  std::string position(std::string_view message) { return at_line(where_, xml_.line(), xml_.column(), message); }

  void stop(std::string message) {
    if (!error_) error_ = bad_input(position(message));
    xml_.stop();
  }

  // The integer attribute `key` (any case), or nullopt with the parser stopped.
  std::optional<std::int64_t> integer(const XML_Char** attrs, const char* key, bool required) {
    for (int i = 0; attrs[i]; i += 2) {
      if (strcasecmp(attrs[i], key) != 0) continue;
      std::string_view v = attrs[i + 1];
      std::int64_t out = 0;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
      if (ec != std::errc() || end != v.data() + v.size()) {
        stop(fmt::format("expected an integer {}=, found {}", key, quote_input(v)));
        return std::nullopt;
      }
      return out;
    }
    if (required) stop(fmt::format("expected a {}= attribute, found none", key));
    return required ? std::nullopt : std::optional<std::int64_t>(-1);
  }

  std::string_view attribute(const XML_Char** attrs, const char* key) {
    for (int i = 0; attrs[i]; i += 2)
      if (std::strcmp(attrs[i], key) == 0) return attrs[i + 1];
    return {};
  }

  std::string_view parent() const { return path_.size() >= 2 ? std::string_view(path_[path_.size() - 2]) : ""; }

  void start(std::string_view name, const XML_Char** attrs) {
    path_.emplace_back(name);
    capture_ = false;
    if (name == "cube") {
      saw_cube_ = true;
    } else if (name == "metric") {
      auto id = integer(attrs, "id", true);
      if (!id) return;
      metrics_.push_back(anchor_.metrics.size());
      anchor_.metrics.push_back(Metric{*id, "", "", "", std::string(attribute(attrs, "type"))});
    } else if (name == "region") {
      auto id = integer(attrs, "id", true);
      auto begin = integer(attrs, "begin", false);
      if (!id || !begin) return;
      anchor_.regions.push_back(Region{*id, "", std::string(attribute(attrs, "mod")), *begin});
    } else if (name == "cnode") {
      auto id = integer(attrs, "id", true);
      auto callee = integer(attrs, "calleeId", true);
      if (!id || !callee) return;
      if (anchor_.cnodes.size() >= UINT32_MAX) return stop("expected fewer call-tree nodes");
      auto me = static_cast<std::uint32_t>(anchor_.cnodes.size());
      Cnode c;
      c.id = *id;
      c.region = *callee;
      c.parent = cnodes_.empty() ? -1 : static_cast<std::int32_t>(cnodes_.back());
      if (!cnodes_.empty()) anchor_.cnodes[cnodes_.back()].children.push_back(me);
      anchor_.cnodes.push_back(std::move(c));
      cnodes_.push_back(me);
    } else if (name == "locationgroup") {
      groups_.push_back(-1);
    } else if (name == "location") {
      auto id = integer(attrs, "Id", true);
      if (!id) return;
      location_ = Location{*id, 0, groups_.empty() ? -1 : groups_.back()};
    } else if (name == "uniq_name" || name == "dtype" || name == "uom" || name == "name" || name == "rank") {
      capture_ = true;
      text_.clear();
    }
  }

  void end(std::string_view name) {
    std::string_view up = parent();
    if (capture_) {
      std::string_view t = trim(text_);
      if (up == "metric" && !metrics_.empty()) {
        Metric& m = anchor_.metrics[metrics_.back()];
        (name == "uniq_name" ? m.uniq_name : name == "dtype" ? m.dtype : m.uom) = t;
      } else if (up == "region" && name == "name" && !anchor_.regions.empty()) {
        anchor_.regions.back().name = t;
      } else if (name == "rank" && (up == "locationgroup" || up == "location")) {
        std::int64_t v = 0;
        auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        if (ec != std::errc() || end != t.data() + t.size())
          return stop(fmt::format("expected an integer <rank>, found {}", quote_input(t)));
        if (up == "location")
          location_.thread = v;
        else if (!groups_.empty())
          groups_.back() = v;
      }
      capture_ = false;
    }
    if (name == "metric" && !metrics_.empty()) {
      metrics_.pop_back();
    } else if (name == "cnode" && !cnodes_.empty()) {
      cnodes_.pop_back();
    } else if (name == "locationgroup" && !groups_.empty()) {
      groups_.pop_back();
    } else if (name == "location") {
      if (location_.process < 0 && !groups_.empty()) location_.process = groups_.back();
      anchor_.locations.push_back(location_);
    }
    if (!path_.empty()) path_.pop_back();
  }

  std::string where_;
  formats::XmlParser xml_;
  Anchor anchor_;
  std::vector<std::string> path_;
  std::vector<std::size_t> metrics_;
  std::vector<std::uint32_t> cnodes_;
  std::vector<std::int64_t> groups_;  // the ranks of the open location groups
  Location location_;
  std::string text_;
  bool capture_ = false, saw_cube_ = false;
  std::optional<Error> error_;
};

}  // namespace

Expected<Anchor> parse_anchor(std::string_view xml, const std::string& where) {
  Parser p(where);
  return p.parse(xml);
}

}  // namespace graphgen::cube::detail
